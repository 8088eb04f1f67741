"""A decision server whose every reply the test writes: a status, headers and a body (any
JSON, or raw bytes), on a loopback port of its own, recording what was asked."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """What the server sends: ``body`` as JSON unless it is bytes, ``chunks`` of bytes
    streamed without a length instead when given."""

    body: object = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    chunks: tuple[bytes, ...] | None = None


@dataclass(frozen=True)
class Asked:
    path: str
    body: dict[str, Any]
    key: str


Answerer = Callable[[Asked], Reply]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        key = self.headers.get("Authorization", "").removeprefix("Bearer ")
        asked = Asked(self.path, json.loads(raw or b"{}"), key)
        with self.server.lock:
            self.server.asked.append(asked)
        reply = self.server.answer(asked)
        self.send_response(reply.status)
        self.send_header("Content-Type", "application/json")
        for name, value in reply.headers.items():
            self.send_header(name, value)
        try:
            if reply.chunks is not None:
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for chunk in reply.chunks:
                    self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                self.wfile.write(b"0\r\n\r\n")
                return
            body = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:  # the client gave up on the reply
            self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, answer: Answerer) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.answer = answer
        self.asked: list[Asked] = []
        self.lock = threading.Lock()


@dataclass
class Endpoint:
    base_url: str
    asked: list[Asked]


@contextmanager
def serving(answer: Answerer) -> Iterator[Endpoint]:
    """A server answering every POST with ``answer(asked)``; its base URL ends in ``/v1``."""
    server = _Server(answer)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield Endpoint(f"http://127.0.0.1:{server.server_address[1]}/v1", server.asked)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
