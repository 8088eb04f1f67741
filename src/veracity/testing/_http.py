"""The socket side of the fake server: a quiet, keep-alive, stoppable ThreadingHTTPServer."""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
import time
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

from veracity.testing._backend import Reply

_MAX_BODY = 64 * 1024 * 1024


class ServesRequests(Protocol):
    """What a fake server answers with: bytes in, a :class:`Reply` out; ``stopping`` is set
    when the server stops, so that replies waiting out a latency end early."""

    stopping: threading.Event

    def handle(
        self, method: str, path: str, body: bytes, headers: Mapping[str, str] | None = None
    ) -> Reply: ...


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in separate writes
    server: LLMHTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: tests read stats, not logs."""

    def handle(self) -> None:
        try:
            super().handle()
        except OSError:  # the client went away (reset, broken pipe) or the server stopped
            self.close_connection = True

    def finish(self) -> None:
        with contextlib.suppress(OSError):
            super().finish()

    def do_POST(self) -> None:
        self._serve("POST")

    def do_GET(self) -> None:
        self._serve("GET")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def do_DELETE(self) -> None:
        self._serve("DELETE")

    def _serve(self, method: str) -> None:
        try:
            body = self._read_body()
        except ValueError:
            self._write(Reply(400, b'{"error": {"message": "bad request body"}}'))
            self.close_connection = True
            return
        headers = dict(self.headers.items())
        self._write(self.server.backend.handle(method, self.path, body, headers))

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self._read_chunked()
        length = int(self.headers.get("Content-Length") or 0)
        if not 0 <= length <= _MAX_BODY:
            raise ValueError("bad Content-Length")
        return self.rfile.read(length)

    def _read_chunked(self) -> bytes:
        parts: list[bytes] = []
        while True:
            size = int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return b"".join(parts)
            parts.append(self.rfile.read(size))
            self.rfile.readline()

    def _write(self, reply: Reply) -> None:
        if reply.mode == "drop":
            self.close_connection = True
            return
        self.send_response(reply.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply.body)))
        for name, value in reply.headers:
            self.send_header(name, value)
        self.end_headers()
        if reply.mode == "truncate":
            self.wfile.write(reply.body[: len(reply.body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(reply.body)
        self.wfile.flush()


class LLMHTTPServer(ThreadingHTTPServer):
    """Tracks its connections and handler threads so that :meth:`stop` is prompt."""

    daemon_threads = True
    block_on_close = False  # stop() joins the handler threads itself, with a deadline
    request_queue_size = 512

    def __init__(self, backend: ServesRequests, host: str = "127.0.0.1", port: int = 0) -> None:
        self.backend = backend
        self._tracked_lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        self._handler_threads: set[threading.Thread] = set()
        super().__init__((host, port), _Handler)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def process_request(self, request: Any, client_address: Any) -> None:
        if isinstance(request, socket.socket):
            with self._tracked_lock:
                self._connections.add(request)
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        thread = threading.current_thread()
        thread.name = f"veracity-fake-llm-{self.port}-handler"
        with self._tracked_lock:
            self._handler_threads.add(thread)
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._tracked_lock:
                self._handler_threads.discard(thread)

    def shutdown_request(self, request: Any) -> None:
        with self._tracked_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], OSError):
            return  # a client disconnecting is not an error worth a traceback
        super().handle_error(request, client_address)

    def close_connections(self) -> None:
        """Shut down every open connection, waking handlers blocked on keep-alive reads."""
        with self._tracked_lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)

    def join_handlers(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        with self._tracked_lock:
            threads = list(self._handler_threads)
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
