"""A server on loopback that answers every request as a test says: a JSON reply, a reply
without end, a reply one byte at a time, a redirect. It records what it was sent."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# How one request is answered: given the handler, it writes the whole reply.
Behaviour = Callable[["_Handler"], None]


@dataclass
class Misbehaving:
    behave: Behaviour
    url: str = ""
    received: list[tuple[str, bytes]] = field(default_factory=list)  # (path, body) of each
    written: int = 0  # bytes of reply bodies written
    stopping: threading.Event = field(default_factory=threading.Event)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def _any(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.state.received.append((self.path, body))
        try:
            self.server.state.behave(self)
        except OSError:  # the client hung up: what the bounds are for
            self.close_connection = True

    do_GET = do_POST = do_PUT = _any

    def write(self, data: bytes) -> None:
        self.wfile.write(data)
        self.wfile.flush()
        self.server.state.written += len(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, host: str, state: Misbehaving) -> None:
        self.state = state
        super().__init__((host, 0), _Handler)


@contextmanager
def misbehaving(behave: Behaviour, host: str = "127.0.0.1") -> Iterator[Misbehaving]:
    state = Misbehaving(behave)
    server = _Server(host, state)
    state.url = f"http://{host}:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.stopping.set()
        server.shutdown()
        server.server_close()
        thread.join()


def json_reply(payload: Any, status: int = 200) -> Behaviour:
    def behave(handler: _Handler) -> None:
        data = json.dumps(payload).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.write(data)

    return behave


def endless_reply(prefix: bytes, total: int, chunk: int = 64 * 1024) -> Behaviour:
    """A JSON reply of ``total`` bytes streamed without a length: ``prefix`` (an object's
    opening and fields) and then a string that goes on (well-formed, read to the end)."""

    def send_chunk(handler: _Handler, data: bytes) -> None:
        handler.write(b"%x\r\n%s\r\n" % (len(data), data))

    def behave(handler: _Handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        send_chunk(handler, prefix + b'"')
        left = total - len(prefix) - 3
        while left > 0:
            send_chunk(handler, b"x" * min(chunk, left))
            left -= chunk
        send_chunk(handler, b'"}')
        handler.write(b"0\r\n\r\n")

    return behave


def dripping_reply(payload: Any, every_s: float) -> Behaviour:
    """A JSON reply with its length said, sent one byte every ``every_s`` seconds."""

    def behave(handler: _Handler) -> None:
        data = json.dumps(payload).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.flush()
        for byte in data:
            if handler.server.state.stopping.wait(every_s):
                return
            handler.write(bytes([byte]))

    return behave


def redirect(location: Callable[[], str], status: int = 307) -> Behaviour:
    def behave(handler: _Handler) -> None:
        handler.send_response(status)
        handler.send_header("Location", location() + handler.path)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    return behave
