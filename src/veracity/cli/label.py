"""``veracity label``: a review page on loopback that turns a run into people's labels."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import TYPE_CHECKING, Annotated
from urllib.parse import urlencode

import typer

from veracity.cli.common import err_console, fail, out_console
from veracity.store.layout import RESULTS

if TYPE_CHECKING:  # the web stack (the label extra) loads when the command runs
    from veracity.review.app import Session

LOOPBACK = "127.0.0.1"


def _bind(host: str, port: int) -> socket.socket:
    try:
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        # Listening before the address is printed: a browser opened on it at once waits in
        # the backlog until the server accepts, instead of being refused.
        sock.listen(128)
    except OSError as exc:
        raise fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    return sock


def session_for(
    runs: list[Path], out: Path, *, annotator: str | None, order: str | None, blind: bool,
    target: int,
) -> Session:  # fmt: skip
    """The session the command serves, or a usage error (exit 2) saying what is wrong."""
    try:
        from veracity.review.app import Session
    except ImportError as exc:
        raise fail(
            f"veracity label needs the web stack: pip install 'veracity[label]' ({exc})"
        ) from exc
    from veracity.review.items import ReviewError, load_review
    from veracity.review.labelfile import LabelFile

    if len(runs) > 2:
        raise fail("give one run, or two (RUN_A RUN_B) for --order disagreement")
    for run in runs:
        if not (run / RESULTS).is_file():
            raise fail(f"not a run directory (no {RESULTS}): {run}")
    if out.exists() and not out.is_file():
        raise fail(f"--out is not a file: {out}")
    if not out.parent.is_dir():
        raise fail(f"--out's directory does not exist: {out.parent}")
    chosen = order or ("disagreement" if len(runs) == 2 else "random")
    try:
        review = load_review(runs[0], order=chosen, other=runs[1] if len(runs) == 2 else None)
    except ReviewError as exc:
        raise fail(str(exc)) from exc
    return Session(review, LabelFile(out), annotator=annotator, blind=blind, target=target)


def label(  # noqa: PLR0913 - a command: one parameter a flag
    runs: Annotated[
        list[Path],
        typer.Argument(
            help="A run directory; with a second, --order disagreement shows first where "
            "their judges differ most."
        ),
    ],
    out: Annotated[Path, typer.Option(help="The labels file, appended to (JSONL).")],
    annotator: Annotated[
        str | None, typer.Option(help="Your name, kept with each label (else asked).")
    ] = None,
    order: Annotated[
        str | None,
        typer.Option(
            help="random (default: unbiased figures), uncertain (nearest the threshold: "
            "what teaches a calibration most), disagreement (two runs), worst."
        ),
    ] = None,
    blind: Annotated[
        bool, typer.Option(help="Hide the judge's verdicts, reason and score.")
    ] = False,
    host: Annotated[
        str, typer.Option(help="Address to listen on (default loopback only).")
    ] = LOOPBACK,
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port (0: a free one).")] = 0,
    no_browser: Annotated[
        bool, typer.Option("--no-browser", help="Do not open a browser.")
    ] = False,
    target: Annotated[
        int, typer.Option(min=1, help="How many labels you aim for (shown as progress).")
    ] = 100,
) -> None:
    """Serve a review page that shows a run's answers one at a time (question, history,
    answer with its claims, contexts with their evidence, the judge's verdict) and appends
    your labels to --out, the file veracity agree and calibrate read. Keys: y faithful,
    n not faithful, s skip, u undo, j/k next/previous. Ctrl-C stops it; run it again to
    resume where you stopped."""
    from veracity.review.items import ORDERS

    if order is not None and order not in ORDERS:
        raise fail(f"--order must be one of {', '.join(ORDERS)}, not {order!r}")
    session = session_for(runs, out, annotator=annotator, order=order, blind=blind, target=target)
    if host != LOOPBACK:
        err_console.print(
            f"[yellow]warning:[/] listening on {host}, not loopback only: anyone who can "
            "reach it and has the address below can label",
            highlight=False,
        )
    sock = _bind(host, port)
    shown = f"[{host}]" if ":" in host else host
    query = {"token": session.token} | ({"annotator": annotator} if annotator else {})
    url = f"http://{shown}:{sock.getsockname()[1]}/?{urlencode(query)}"
    out_console.print(f"labelling page: {url}", highlight=False, markup=False, soft_wrap=True)
    out_console.print(
        f"{len(session.review.items)} item(s) of {runs[0]} in {session.review.order} order; "
        f"labels appended to {out}; Ctrl-C stops",
        highlight=False,
        markup=False,
    )
    if not no_browser:
        import webbrowser

        webbrowser.open(url)
    serve(session, sock)


def serve(session: Session, sock: socket.socket) -> None:
    """Serve ``session`` on the bound ``sock`` until interrupted."""
    import uvicorn

    from veracity.review.app import create_app

    config = uvicorn.Config(create_app(session), log_level="warning", lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])
