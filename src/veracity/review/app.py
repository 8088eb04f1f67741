"""The review page as an ASGI app (Starlette, Jinja2 with autoescaping): one item at a
time, answers appended to the labels file, every request checked for the session's token
and every POST for its origin."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final
from urllib.parse import parse_qs, urlencode

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, PlainTextResponse, RedirectResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from veracity.review.items import Item, Review
from veracity.review.labelfile import LabelFile
from veracity.review.marks import marked
from veracity.review.progress import Progress, progress, run_calibration

HERE: Final = Path(__file__).parent
STATIC: Final = ("label.css", "label.js")
MAX_BODY: Final = 64_000
# The page loads its own script and style sheet and posts only to itself; the token in
# its address is never sent elsewhere as a referrer (same-origin, not no-referrer: under
# no-referrer Chromium posts forms with "Origin: null", which the origin check refuses).
HEADERS: Final = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "Referrer-Policy": "same-origin",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


@dataclass
class Session:
    """What one ``veracity label`` serves: the run's items, the labels file, the token."""

    review: Review
    labels: LabelFile
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    annotator: str | None = None
    blind: bool = False
    target: int = 100
    calibration_out: Path | None = None

    def calibration_path(self) -> Path:
        if self.calibration_out is not None:
            return self.calibration_out
        return self.labels.path.with_name(self.labels.path.stem + ".calibration.json")


class Guard:
    """Refuses (403) a request without the session's token (``?token=``), and a POST
    whose ``Origin`` is not this server's or that a browser marks cross-site."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        given = request.query_params.get("token", "")
        why = None
        if not secrets.compare_digest(given.encode(), self.token.encode()):
            why = "this page needs the address veracity label printed (with its token)"
        elif request.method not in ("GET", "HEAD") and not _same_origin(request):
            why = "refused: a form posted from another site"
        if why is not None:
            await PlainTextResponse(why, status_code=403, headers=HEADERS)(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _v in message.get("headers", [])}
                extra = [(k.lower().encode(), v.encode()) for k, v in HEADERS.items()
                         if k.lower().encode() not in present]  # fmt: skip
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _same_origin(request: Request) -> bool:
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin is None:
        return True  # not a browser's form (curl, a test client): the token is the check
    host = request.headers.get("host", "")
    return origin in (f"http://{host}", f"https://{host}")


async def _form(request: Request) -> dict[str, list[str]]:
    """The posted form; none when the body is over ``MAX_BODY`` (read no further)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            return {}
        chunks.append(chunk)
    return parse_qs(b"".join(chunks).decode("utf-8", "replace"), keep_blank_values=True)


def _environment() -> Environment:
    return Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
    )


def _view(item: Item) -> dict[str, Any]:
    """The item cut into marked runs: claims in the answer, evidence in the contexts."""
    claims = [(c.text, f"v-{c.verdict or 'unknown'}", n) for n, c in enumerate(item.claims, 1)]
    evidence = [(c.evidence, "evidence", n) for n, c in enumerate(item.claims, 1)]
    return {
        "answer": marked(item.answer, claims),
        "contexts": [marked(context, evidence) for context in item.contexts],
    }


def create_app(session: Session) -> Starlette:  # noqa: PLR0915 - the routes share the session
    """The review page's app for ``session``."""
    env = _environment()
    page = env.get_template("page.html")
    items = session.review.items

    def address(path: str, annotator: str | None, **params: object) -> str:
        query: dict[str, object] = {"token": session.token}
        if annotator:
            query["annotator"] = annotator
        query |= {k: v for k, v in params.items() if v is not None}
        return f"{path}?{urlencode(query)}"

    def annotator_of(request: Request) -> str | None:
        name = (request.query_params.get("annotator") or session.annotator or "").strip()
        return name[:100] or None

    def next_index(annotator: str, after: int) -> int | None:
        """The next item (wrapping) the annotator has not answered, after ``after``."""
        done = {s.key for s in session.labels.standing(annotator)}
        for step in range(1, len(items) + 1):
            index = (after + step) % len(items)
            if items[index].key not in done:
                return index
        return None

    def index_of(request: Request) -> int | None:
        raw = request.query_params.get("i")
        if raw is None or not raw.isdigit():
            return None
        return int(raw) % len(items)

    def render(request: Request, **context: Any) -> HTMLResponse:
        annotator = annotator_of(request)
        shown: Progress | None = None
        if annotator is not None:
            shown = progress(session.review, session.labels, annotator, session.target)
        return HTMLResponse(
            page.render(
                token=session.token,
                annotator=annotator,
                blind=session.blind,
                progress=shown,
                review=session.review,
                total=len(items),
                address=lambda path, **params: address(path, annotator, **params),
                calibration_path=str(session.calibration_path()),
                **context,
            )
        )

    # Plain functions where the file and the figures are read: Starlette runs them in its
    # thread pool, so a slow AUROC or calibration does not stall the other annotators.
    def home(request: Request) -> HTMLResponse:
        annotator = annotator_of(request)
        if annotator is None:
            return render(request, ask_name=True)
        index = index_of(request)
        if index is None:
            index = next_index(annotator, -1)
        if index is None:
            return render(request, done=True)
        item = items[index]
        answered = next((s for s in session.labels.standing(annotator) if s.key == item.key), None)
        return render(
            request, item=item, index=index, view=_view(item), answered=answered,
            skip_to=next_index(annotator, index),
        )  # fmt: skip

    async def answer(request: Request) -> HTMLResponse | RedirectResponse:
        annotator = annotator_of(request)
        index = index_of(request)
        form = await _form(request)
        value = (form.get("value") or [""])[0]
        if annotator is None or index is None or value not in ("y", "n"):
            return HTMLResponse("an answer needs an annotator, an item and y or n", 400)
        item = items[index]
        wrong = {item.claims[int(n) - 1].text: "not faithful"
                 for n in form.get("claim", []) if n.isdigit()
                 and 1 <= int(n) <= len(item.claims)}  # fmt: skip
        note = (form.get("note") or [""])[0][:2000]

        def write() -> int | None:  # waits for the file lock: off the event loop
            session.labels.label(
                item.key, annotator, 1.0 if value == "y" else 0.0,
                order=session.review.order, note=note, claims=wrong,
            )  # fmt: skip
            return next_index(annotator, index)

        following = await run_in_threadpool(write)
        return RedirectResponse(address("/", annotator, i=following), status_code=303)

    def undo(request: Request) -> HTMLResponse | RedirectResponse:
        annotator = annotator_of(request)
        if annotator is None:
            return HTMLResponse("undo needs an annotator", 400)
        withdrawn = session.labels.undo(annotator)
        index = None
        if withdrawn is not None:
            index = next((n for n, it in enumerate(items) if it.key == withdrawn.key), None)
        return RedirectResponse(address("/", annotator, i=index), status_code=303)

    def calibrate(request: Request) -> HTMLResponse:
        outcome = run_calibration(session.review, session.labels, session.calibration_path())
        return render(request, calibration=outcome)

    def static(request: Request) -> FileResponse | PlainTextResponse:
        name = request.path_params["name"]
        if name not in STATIC:
            return PlainTextResponse("not found", 404)
        kind = "text/css" if name.endswith(".css") else "text/javascript"
        return FileResponse(HERE / "static" / name, media_type=kind)

    app = Starlette(
        routes=[
            Route("/", home),
            Route("/answer", answer, methods=["POST"]),
            Route("/undo", undo, methods=["POST"]),
            Route("/calibrate", calibrate, methods=["POST"]),
            Route("/static/{name}", static),
        ]
    )
    app.add_middleware(Guard, token=session.token)
    return app
