"""What the fake server answers, independent of sockets: bytes in, a :class:`Reply` out."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from veracity.testing._batches import FakeBatches
from veracity.testing._request import (
    Api,
    ChatRequest,
    Latency,
    RequestError,
    Responder,
    anthropic_chat_request,
    approx_tokens,
    embedding_inputs,
    forced_tool,
    openai_chat_request,
)
from veracity.testing.faults import FaultInjector, FaultPlan, Faults, format_retry_after
from veracity.testing.mangle import mangle_content
from veracity.testing.payloads import (
    anthropic_message,
    cut_to_bound,
    dumps,
    embeddings_response,
    error_body,
    openai_completion,
    reply_bound,
    token_logprobs,
)
from veracity.testing.stats import RequestCounters, StatsCollector

Route = Literal["chat", "messages", "embeddings"]
_ROUTES: dict[str, Route] = {
    "/v1/chat/completions": "chat",
    "/chat/completions": "chat",
    "/v1/messages": "messages",
    "/v1/embeddings": "embeddings",
    "/embeddings": "embeddings",
}
MALFORMED_BODY = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
JSON_SCHEMA_UNSUPPORTED = "response_format json_schema is not supported"
LOGPROBS_UNSUPPORTED = "logprobs are not supported by this model"
SCHEMA_IN_JSON_MODE_UNSUPPORTED = "response_format.schema: Extra inputs are not permitted"
# What llama-cpp-python's server answers (HTTP 500) to a response_format it does not know.
JSON_SCHEMA_VALIDATION_ERROR = (
    "1 validation error: {'type': 'literal_error', 'loc': ('body', 'response_format', "
    "'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}"
)


@dataclass(frozen=True)
class Reply:
    """An HTTP response to write; ``mode`` says whether to send it whole, cut it or drop it."""

    status: int
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()
    mode: Literal["send", "truncate", "drop"] = "send"


CountersT_co = TypeVar("CountersT_co", bound=RequestCounters, covariant=True)


class CountingBackend(Generic[CountersT_co]):
    """What every fake server's backend keeps: its counters, the faults it injects (drawn
    from a RNG seeded with ``seed``), and the signal that the server is stopping."""

    def __init__(self, stats: CountersT_co, faults: Faults, seed: int) -> None:
        self.stats = stats
        self.injector = FaultInjector(faults, seed)
        self.seed = seed
        self.stopping = threading.Event()

    def handle(
        self, method: str, path: str, body: bytes, headers: Mapping[str, str] | None = None
    ) -> Reply:
        self.stats.begin()
        reply: Reply | None = None
        try:
            reply = self._handle(method, path, body, headers or {})
        finally:
            self.stats.end(None if reply is None or reply.mode == "drop" else reply.status)
        return reply

    def _handle(self, method: str, path: str, body: bytes, headers: Mapping[str, str]) -> Reply:
        raise NotImplementedError


def _error(api: Api, status: int, message: str, **extra: str | None) -> Reply:
    headers = (("x-request-id", f"req_{uuid.uuid4().hex[:16]}"),)
    return Reply(status, dumps(error_body(api, status, message, **extra)), headers)


class Backend(CountingBackend[StatsCollector]):
    """Routes a request, applies latency and faults, and asks the responder for the text."""

    def __init__(  # noqa: PLR0913 - a fake server's behaviours, each with its default
        self,
        responder: Responder,
        *,
        latency: Latency,
        faults: Faults,
        seed: int,
        supports_json_schema: bool,
        supports_logprobs: bool = True,
        supports_schema_in_json_mode: bool = True,
        rejection_status: int = 400,
        api_key: str | None = None,
        record_requests: bool = True,
    ) -> None:
        super().__init__(StatsCollector(record_requests=record_requests), faults, seed)
        self.responder = responder
        self.api_key = api_key
        self.latency = latency
        self.supports_json_schema = supports_json_schema
        self.supports_logprobs = supports_logprobs
        self.supports_schema_in_json_mode = supports_schema_in_json_mode
        self.rejection_status = rejection_status
        self.batches = FakeBatches(self.answer)

    def _handle(self, method: str, path: str, body: bytes, headers: Mapping[str, str]) -> Reply:
        return self._authorize(path, headers) or self._route(method, path, body, headers)

    def _authorize(self, path: str, headers: Mapping[str, str]) -> Reply | None:
        """HTTP 401 unless the request carries ``api_key`` (when the server has one)."""
        if self.api_key is None:
            return None
        lowered = {key.lower(): value for key, value in headers.items()}
        if self.api_key in (lowered.get("x-api-key"), lowered.get("authorization", "")[7:]):
            return None
        api: Api = "anthropic" if path.rstrip("/").endswith("/messages") else "openai"
        return _error(api, 401, "Incorrect API key provided.", code="invalid_api_key")

    def _route(self, method: str, path: str, body: bytes, headers: Mapping[str, str]) -> Reply:
        if FakeBatches.serves(path):
            status, content = self.batches.handle(method, path, body, headers)
            return Reply(status, content)
        return self._dispatch(method, path, body)

    def answer(self, api: Api, body: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
        """A request of a batch, answered as a live one is (no latency, no fault): its
        HTTP status and JSON body."""
        route: Route = "messages" if api == "anthropic" else "chat"
        try:
            request = self._parse(route, dict(body))
        except RequestError as exc:
            reply = _error(api, 400, str(exc), param=exc.param)
        else:
            self.stats.body(dict(body))
            rejected = self._rejected_option(api, request) if route == "chat" else None
            reply = rejected or self._complete(route, request, FaultPlan())
        decoded: dict[str, Any] = json.loads(reply.body)
        return reply.status, decoded

    def _sleep(self, request: ChatRequest | None) -> None:
        if callable(self.latency):
            seconds = self.latency(request) if request is not None else 0.0
        else:
            seconds = self.latency
        if seconds > 0:
            self.stopping.wait(seconds)

    def _dispatch(self, method: str, path: str, raw: bytes) -> Reply:
        route = _ROUTES.get(path.split("?", 1)[0].rstrip("/"))
        api: Api = "anthropic" if route == "messages" else "openai"
        if route is None or method != "POST":
            self._sleep(None)
            return _error(api, 404, f"Unknown request URL: {method} {path}")
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if not isinstance(body, dict):
            self._sleep(None)
            return _error(api, 400, "The request body is not a JSON object.")
        self.stats.body(body)
        try:
            request = self._parse(route, body)
        except RequestError as exc:
            self._sleep(None)
            return _error(api, 400, str(exc), param=exc.param)
        self._sleep(request)
        if route == "chat":
            rejected = self._rejected_option(api, request)
            if rejected is not None:
                return rejected
        wait = self.injector.rate_limit_wait()
        if wait is not None:
            self.stats.fault("rate_limit")
            seconds, millis = format_retry_after(wait)
            reply = _error(api, 429, "Rate limit reached; retry later.", code="rate_limit_exceeded")
            return Reply(429, reply.body, (("Retry-After", seconds), ("retry-after-ms", millis)))
        plan = self.injector.draw(content_faults=route != "embeddings")
        if plan.kind is not None and plan.kind != "malformed_content":
            self.stats.fault(plan.kind)
            return self._transport_fault(api, plan, request)
        if route == "embeddings":
            return self._embeddings(request)
        return self._complete(route, request, plan)

    def _rejected_option(self, api: Api, request: ChatRequest) -> Reply | None:
        """The error for an option this server does not take, as real servers word it."""
        status = self.rejection_status
        response_format = request.response_format or {}
        if not self.supports_json_schema and response_format.get("type") == "json_schema":
            if status == 500:
                return _error(api, status, JSON_SCHEMA_VALIDATION_ERROR)
            return _error(api, status, JSON_SCHEMA_UNSUPPORTED, param="response_format")
        if not self.supports_schema_in_json_mode and "schema" in response_format:
            return _error(api, status, SCHEMA_IN_JSON_MODE_UNSUPPORTED, param="response_format")
        if not self.supports_logprobs and request.raw.get("logprobs"):
            return _error(api, status, LOGPROBS_UNSUPPORTED, param="logprobs")
        return None

    @staticmethod
    def _parse(route: Route, body: dict[str, Any]) -> ChatRequest:
        if route == "chat":
            return openai_chat_request(body)
        if route == "messages":
            return anthropic_chat_request(body)
        model = body.get("model")
        if not isinstance(model, str) or not model:
            raise RequestError("you must provide a model parameter", "model")
        messages = tuple(("user", text) for text in embedding_inputs(body))
        return ChatRequest(model, messages, None, "openai", body)

    def _transport_fault(self, api: Api, plan: FaultPlan, request: ChatRequest) -> Reply:
        if plan.kind == "status_5xx":
            return _error(api, plan.status, f"Injected server error ({plan.status}).")
        if plan.kind == "drop_connection":
            return Reply(0, mode="drop")
        if plan.kind == "malformed_body":
            return Reply(200, MALFORMED_BODY)
        # truncated_body: a plausible envelope, cut in half, the responder left untouched.
        if request.api == "anthropic":
            full = anthropic_message(request.model, "", 1, 1)
        else:
            full = openai_completion(request.model, "", 1, 1)
        return Reply(200, dumps(full), mode="truncate")

    def _embeddings(self, request: ChatRequest) -> Reply:
        inputs = [text for _, text in request.messages]
        encoding = request.raw.get("encoding_format")
        tokens = sum(approx_tokens(text) for text in inputs)
        body = embeddings_response(
            request.model, inputs, encoding if isinstance(encoding, str) else None, tokens
        )
        self.stats.embedding()
        return Reply(200, dumps(body))

    def _complete(self, route: Route, request: ChatRequest, plan: FaultPlan) -> Reply:
        api = request.api
        try:
            content = self.responder(request)
        except Exception as exc:
            return _error(api, 500, f"responder failed: {type(exc).__name__}: {exc}")
        if not isinstance(content, str):
            message = f"responder returned {type(content).__name__}, not str"
            return _error(api, 500, message)
        if plan.kind == "malformed_content" and plan.mangling is not None:
            mangled = mangle_content(content, plan.mangling)
            self.stats.fault("malformed_content", mangled.kind)
            content = mangled.text
        content, cut = cut_to_bound(content, reply_bound(request.raw))
        prompt_tokens = sum(approx_tokens(text) for _, text in request.messages)
        completion_tokens = approx_tokens(content)
        self.stats.completion(prompt_tokens, completion_tokens)
        if route == "messages":
            tool = forced_tool(request.raw)
            body = anthropic_message(
                request.model, content, prompt_tokens, completion_tokens, tool, cut=cut
            )
            headers: tuple[tuple[str, str], ...] = (("request-id", f"req_{uuid.uuid4().hex}"),)
        else:
            logprobs = token_logprobs(content, request.raw) if request.raw.get("logprobs") else None
            body = openai_completion(
                request.model, content, prompt_tokens, completion_tokens, cut=cut, logprobs=logprobs
            )
            headers = (("x-request-id", f"req_{uuid.uuid4().hex[:16]}"),)
        return Reply(200, dumps(body), headers)
