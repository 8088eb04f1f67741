"""What the fake decision server answers, independent of sockets: bytes in, a reply out."""

from __future__ import annotations

import json
import math
import uuid
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from veracity.decisions.base import Question, ServerLimits
from veracity.testing._backend import MALFORMED_BODY, CountingBackend, Reply
from veracity.testing._decision_wire import (
    NOT_A_DECISION_MODEL,
    OPENAI_LIMITS,
    SYSTEMONE_LIMITS,
    DecisionCall,
    DecisionRequestError,
    Format,
    check_state_tokens,
    error_reply,
    openai_answer,
    openai_reply,
    parse_openai,
    parse_systemone,
    systemone_answer,
    systemone_reply,
)
from veracity.testing.decision_mangle import (
    DecisionExchange,
    DecisionMangleHook,
    DecisionMangling,
    mangle_decision,
)
from veracity.testing.faults import FaultPlan, Faults, format_retry_after
from veracity.testing.payloads import dumps
from veracity.testing.stats import RequestCounters

DecisionResponder = Callable[[str, Question], "Sequence[float] | None"]
"""Answers one question about a state: a probability per option in the question's order
(a predicate: ``false``, ``true``), or ``None`` to refuse it."""

DecisionLatency = float | Callable[[dict[str, Any]], float]
"""Seconds to wait before answering: a constant, or computed from the request's body."""

Refuse = Collection[str] | Callable[[Question], bool]

_ROUTES: dict[str, Format] = {
    "/v1/systemone": "systemone",
    "/systemone": "systemone",
    "/v1/decisions": "openai",
    "/decisions": "openai",
}


@dataclass(frozen=True)
class DecisionServerStats:
    """A snapshot of :attr:`FakeDecisionServer.stats`."""

    requests: int
    """Every HTTP request received, whatever became of it."""
    by_status: Mapping[int, int]
    """Responses sent, by HTTP status (dropped connections send none)."""
    by_format: Mapping[str, int]
    """Requests to each route: ``systemone`` (``/v1/systemone``), ``openai``
    (``/v1/decisions``)."""
    faults: Mapping[str, int]
    """Injected faults by kind (rate_limit, status_5xx, drop_connection, malformed_body,
    truncated_body) and ``mangled`` replies."""
    manglings: Mapping[str, int]
    """Which mangling each ``mangled`` reply had (``hook`` for a callable)."""
    decisions: int
    """Requests answered with HTTP 200 and answers (mangled or not)."""
    questions: int
    """Questions in those requests, answered or refused."""
    refusals: int
    """Questions refused (OpenAI: a ``refusal`` answer; System One: left out)."""
    input_tokens: int
    """The ``usage.input_tokens`` of those replies, summed."""
    max_concurrent: int
    """The most requests being handled at the same time."""
    in_flight: int = 0


class _Counters(RequestCounters):
    def _clear(self) -> None:
        super()._clear()
        self._by_format: Counter[str] = Counter()
        self._decisions = self._questions = self._refusals = self._input_tokens = 0

    def routed(self, fmt: Format, body: dict[str, Any] | None) -> None:
        with self._lock:
            self._by_format[fmt] += 1
        if body is not None:
            self.body(body)

    def decision(self, questions: int, refusals: int, input_tokens: int) -> None:
        with self._lock:
            self._decisions += 1
            self._questions += questions
            self._refusals += refusals
            self._input_tokens += input_tokens

    def snapshot(self) -> DecisionServerStats:
        with self._lock:
            return DecisionServerStats(
                **self._shared(),
                by_format=dict(self._by_format),
                decisions=self._decisions,
                questions=self._questions,
                refusals=self._refusals,
                input_tokens=self._input_tokens,
            )


@dataclass
class DecisionBehaviour:
    """The fake decision server's settings (see :class:`FakeDecisionServer`)."""

    responder: DecisionResponder
    model: str
    limits: ServerLimits | None
    limit_status: int | None
    decision_model: bool
    refuse: Refuse
    mangling: DecisionMangling | DecisionMangleHook | None
    huge_bytes: int
    latency: DecisionLatency
    api_key: str | None


def _json(status: int, body: dict[str, Any], headers: tuple[tuple[str, str], ...] = ()) -> Reply:
    return Reply(status, dumps(body), headers)


class DecisionBackend(CountingBackend[_Counters]):
    """Routes a request, checks it, applies latency and faults, asks the responder."""

    def __init__(
        self, behaviour: DecisionBehaviour, faults: Faults, seed: int, *, record_requests: bool
    ) -> None:
        super().__init__(_Counters(record_requests=record_requests), faults, seed)
        self.behaviour = behaviour

    def _handle(self, method: str, path: str, raw: bytes, headers: Mapping[str, str]) -> Reply:
        fmt = _ROUTES.get(path.split("?", 1)[0].rstrip("/"))
        lowered = {key.lower(): value for key, value in headers.items()}
        sent_key = lowered.get("authorization", "").removeprefix("Bearer ") or lowered.get(
            "x-api-key"
        )
        if fmt is None or method != "POST":
            status_fmt: Format = "openai" if fmt is None else fmt
            return _json(404, error_reply(status_fmt, 404, f"Unknown request URL: {method} {path}"))
        behaviour = self.behaviour
        if behaviour.api_key is not None and sent_key != behaviour.api_key:
            self.stats.routed(fmt, None)
            message = "Invalid API Key" if fmt == "systemone" else "Incorrect API key provided."
            code = None if fmt == "systemone" else "invalid_api_key"
            return _json(401, error_reply(fmt, 401, message, code=code))
        if not behaviour.decision_model:
            # llama-server refuses the route before it reads the body.
            self.stats.routed(fmt, None)
            return _json(501, error_reply("systemone", 501, NOT_A_DECISION_MODEL))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        self.stats.routed(fmt, body if isinstance(body, dict) else None)
        if not isinstance(body, dict):
            message = "the request body is not a JSON object"
            return _json(400, error_reply(fmt, 400, message))
        self._sleep(body)
        try:
            call = self._parse(fmt, body)
        except DecisionRequestError as exc:
            error = error_reply(
                fmt, exc.status, str(exc), param=exc.param, code=exc.code, kind=exc.kind
            )
            return _json(exc.status, error)
        wait = self.injector.rate_limit_wait()
        if wait is not None:
            self.stats.fault("rate_limit")
            return self._rate_limited(fmt, wait)
        plan = self.injector.draw(content_faults=False)
        if plan.kind is not None:
            self.stats.fault(plan.kind)
            return self._transport_fault(fmt, plan)
        return self._answer(call, body, sent_key)

    def _parse(self, fmt: Format, body: dict[str, Any]) -> DecisionCall:
        limits = self.behaviour.limits
        status = self.behaviour.limit_status
        if fmt == "systemone":
            call = parse_systemone(body, limits or SYSTEMONE_LIMITS, status)
        else:
            call = parse_openai(body, limits or OPENAI_LIMITS, status)
        if limits is not None:
            check_state_tokens(call, limits)
        return call

    def _sleep(self, body: dict[str, Any]) -> None:
        latency = self.behaviour.latency
        seconds = latency(body) if callable(latency) else latency
        if seconds > 0:
            self.stopping.wait(seconds)

    @staticmethod
    def _rate_limited(fmt: Format, wait: float) -> Reply:
        body = error_reply(fmt, 429, "Rate limit reached; retry later.", code="rate_limit_exceeded")
        if fmt == "systemone":
            # llama-server sends whole seconds, at least one.
            return _json(429, body, (("Retry-After", str(max(1, math.ceil(wait)))),))
        seconds, millis = format_retry_after(wait)
        return _json(429, body, (("Retry-After", seconds), ("retry-after-ms", millis)))

    @staticmethod
    def _transport_fault(fmt: Format, plan: FaultPlan) -> Reply:
        if plan.kind == "status_5xx":
            return _json(
                plan.status,
                error_reply(fmt, plan.status, f"Injected server error ({plan.status})."),
            )
        if plan.kind == "drop_connection":
            return Reply(0, mode="drop")
        if plan.kind == "malformed_body":
            return Reply(200, MALFORMED_BODY)
        # truncated_body: a plausible envelope, cut in half.
        full = systemone_reply("fake", {}, 1) if fmt == "systemone" else openai_reply("fake", [], 1)
        return Reply(200, dumps(full), mode="truncate")

    def _refused(self, question: Question, name: str | None) -> bool:
        refuse = self.behaviour.refuse
        if callable(refuse):
            return bool(refuse(question))
        return name is not None and name in refuse

    def _answer(self, call: DecisionCall, body: dict[str, Any], sent_key: str | None) -> Reply:
        behaviour = self.behaviour
        answered: list[Sequence[float] | None] = []
        for question, name in zip(call.questions, call.names, strict=True):
            if self._refused(question, name):
                answered.append(None)
                continue
            try:
                probabilities = behaviour.responder(call.state, question)
            except Exception as exc:
                message = f"responder failed: {type(exc).__name__}: {exc}"
                return _json(500, error_reply(call.format, 500, message))
            expected = len(question.option_values())
            if probabilities is not None and len(probabilities) != expected:
                message = f"responder gave {len(probabilities)} probabilities, not {expected}"
                return _json(500, error_reply(call.format, 500, message))
            answered.append(probabilities)
        tokens = call.input_tokens()
        reply = self._reply(call, answered, tokens)
        refusals = sum(1 for p in answered if p is None)
        self.stats.decision(len(call.questions), refusals, tokens)
        headers = (("x-request-id", f"req_{uuid.uuid4().hex[:16]}"),)
        if behaviour.mangling is None:
            return _json(200, reply, headers)
        exchange = DecisionExchange(call.format, body, reply, sent_key)
        if callable(behaviour.mangling):
            self.stats.fault("mangled", "hook")
            outcome = behaviour.mangling(exchange)
            status, mangled = outcome if isinstance(outcome, tuple) else (200, outcome)
        else:
            self.stats.fault("mangled", behaviour.mangling)
            status, mangled = mangle_decision(
                behaviour.mangling, exchange, huge_bytes=behaviour.huge_bytes
            )
        raw = mangled if isinstance(mangled, bytes) else dumps(mangled)
        return Reply(status, raw, headers)

    def _reply(
        self, call: DecisionCall, answered: list[Sequence[float] | None], tokens: int
    ) -> dict[str, Any]:
        if call.format == "systemone":
            answers = {
                q.name: systemone_answer(q, p)
                for q, p in zip(call.questions, answered, strict=True)
                if p is not None
            }
            # llama-server names the model it has loaded, whatever the request says.
            return systemone_reply(self.behaviour.model, answers, tokens)
        values = call.choice_values or ((),) * len(call.questions)
        listed = [
            openai_answer(q, name, p, v)
            for q, name, p, v in zip(call.questions, call.names, answered, values, strict=True)
        ]
        return openai_reply(call.model or self.behaviour.model, listed, tokens)
