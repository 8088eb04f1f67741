"""Endpoints that misbehave as the fake server does not: a reply that trickles in byte by
byte, errors that echo the caller's key back, and any status and body a test writes; and
what the tests against them share: samples, fast retries, judges on such an endpoint."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

from tests.helpers import paris_rows
from veracity.chat import OpenAIChat
from veracity.chat.anthropic_chat import AnthropicChat
from veracity.judges import LLMJudge
from veracity.testing.payloads import dumps, openai_completion
from veracity.transport import RetryPolicy


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with self.server.lock:
            self.server.requests += 1
            number = self.server.requests
        endpoint = self.server.endpoint
        if endpoint.answer is not None:
            self._send(*endpoint.answer(self._key()))
            return
        echoing = endpoint.echo_first is None or number <= endpoint.echo_first
        if endpoint.echo_status is not None and echoing:
            self._echo(endpoint.echo_status)
        else:
            self._trickle(endpoint.every_s)

    def _key(self) -> str:
        """The key the request carries (OpenAI's bearer token or Anthropic's x-api-key)."""
        bearer = self.headers.get("Authorization", "").removeprefix("Bearer ")
        return bearer or self.headers.get("x-api-key", "")

    def _send(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:  # the client gave up on the reply
            self.close_connection = True

    def _echo(self, status: int) -> None:
        authorization = self.headers.get("Authorization", "")
        key = authorization.removeprefix("Bearer ")
        message = (
            f"response_format refused for {authorization!r} (x-api-key: {key}); "
            f"the key {key} is not allowed here"
        )
        body = json.dumps({"error": {"message": message, "type": "invalid_request_error"}})
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def _trickle(self, every_s: float) -> None:
        body = dumps(openai_completion("m", json.dumps({"claims": ["Paris is in France."]}), 1, 1))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.flush()
        try:
            for byte in body:
                if self.server.stopping.wait(every_s):
                    return
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
        except OSError:  # the client gave up on the reply
            self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, endpoint: HostileEndpoint) -> None:
        self.endpoint = endpoint
        self.lock = threading.Lock()
        self.requests = 0
        self.stopping = threading.Event()
        super().__init__(("127.0.0.1", 0), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client gone before its reply was written is what a stopped run does: not an
        error (and a traceback printed here would land in the stderr of a command the
        test runs in-process)."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


# What an endpoint answers, given the request's key: a status and a body.
Answer = Callable[[str], tuple[int, bytes]]


class HostileEndpoint:
    """An OpenAI-compatible endpoint on loopback that answers a request either with a
    valid reply (claims) sent one byte every ``every_s`` seconds, or (``echo_status``) with
    that HTTP status and an error message naming response_format and quoting the request's
    bearer token: every request, or with ``echo_first`` the first that many. ``answer``
    (given the request's key) writes every reply instead, whatever the path."""

    def __init__(
        self,
        *,
        every_s: float = 0.2,
        echo_status: int | None = None,
        echo_first: int | None = None,
        answer: Answer | None = None,
    ) -> None:
        self.every_s = every_s
        self.echo_status = echo_status
        self.echo_first = echo_first
        self.answer = answer
        self._server: _Server | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    @property
    def requests(self) -> int:
        assert self._server is not None
        return self._server.requests

    def __enter__(self) -> HostileEndpoint:
        self._server = _Server(self)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        assert self._server is not None
        self._server.stopping.set()
        self._server.shutdown()
        self._server.server_close()


KEY = "sk-hostile0123456789abcdef"
FAST_RETRY = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.02)
SAMPLES = paris_rows(4)


def judge(provider: str, base_url: str, **options: Any) -> LLMJudge:
    """An ``openai/`` or ``anthropic/`` judge on ``base_url`` with the test key."""
    chat_class = OpenAIChat if provider == "openai" else AnthropicChat
    options.setdefault("retry", FAST_RETRY)
    return LLMJudge(chat_class("m", base_url=base_url, api_key=KEY, **options))


def results(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def written(run_dir: Path, cache: Path) -> bytes:
    """Every byte the run put on disk: its directory, the response cache and its log."""
    files = [*run_dir.iterdir(), *cache.parent.glob(cache.name + "*")]
    return b"".join(path.read_bytes() for path in files if path.is_file())
