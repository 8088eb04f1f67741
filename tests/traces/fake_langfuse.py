"""A Langfuse API on loopback, as small as veracity needs: the v2 observations read path
(cursor pages, a start-time window, basic auth) and score creation (upserted by id, a 207
for the scores it is told to reject)."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

PUBLIC, SECRET = "pk-lf-test-0001", "sk-lf-secret-key-0001"


class FakeLangfuse:
    def __init__(self, observations: list[dict[str, Any]]) -> None:
        self.observations = observations
        self.scores: dict[str, dict[str, Any]] = {}
        self.score_posts = 0
        self.reject_names: set[str] = set()
        self.pages: list[dict[str, list[str]]] = []

    def handle(
        self, method: str, path: str, query: dict[str, list[str]], body: Any
    ) -> tuple[int, Any]:
        if path == "/api/public/v2/observations" and method == "GET":
            self.pages.append(query)
            since = query.get("fromStartTime", [None])[0]
            start_of = datetime.fromisoformat
            chosen = [
                o
                for o in self.observations
                if since is None or start_of(o["startTime"]) >= start_of(since)
            ]
            start = int(query.get("cursor", ["0"])[0])
            limit = int(query.get("limit", ["50"])[0])
            page = chosen[start : start + limit]
            more = start + limit < len(chosen)
            return 200, {"data": page, "meta": {"cursor": str(start + limit) if more else None}}
        if path == "/api/public/scores" and method == "POST":
            self.score_posts += 1
            accepted, errors = 0, []
            for score in body:
                if score["name"] in self.reject_names:
                    errors.append(
                        {"message": f"score {score['id']}: no config for {score['name']}"}
                    )
                    continue
                self.scores[score["id"]] = score
                accepted += 1
            return (207 if errors else 202), {
                "accepted": accepted,
                "rejected": len(errors),
                "errors": errors,
            }
        return 404, {"message": f"no route {method} {path}"}


@contextmanager
def serving(fake: FakeLangfuse) -> Iterator[str]:
    expected = "Basic " + base64.b64encode(f"{PUBLIC}:{SECRET}".encode()).decode()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: object) -> None:
            pass

        def _answer(self, method: str) -> None:
            if self.headers.get("Authorization") != expected:
                # As a real server might: the credentials it was given, echoed.
                self._send(
                    401, {"message": f"Invalid credentials: {self.headers.get('Authorization')}"}
                )
                return
            url = urlparse(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length)) if length else None
            self._send(*fake.handle(method, url.path, parse_qs(url.query), body))

        def _send(self, status: int, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._answer("GET")

        def do_POST(self) -> None:
            self._answer("POST")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
