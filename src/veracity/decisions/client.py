"""What the decision models of every wire format share: the OpenAI SDK's client (one set of
headers, error classes, bounds and retries with the chat judges), requests split at the
server's limits and sent at once, limits learnt from a server's refusals, and errors a
user can act on."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import re
import time
from collections.abc import Awaitable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Unpack

from veracity.chat.openai_chat import OpenAIClient
from veracity.chat.sdk import EndpointOptions, count
from veracity.dataset.fields import a_json_type
from veracity.decisions.base import (
    Answer,
    DecisionReply,
    DecisionRequest,
    PartlyDecidedError,
    Question,
    ServerLimits,
)
from veracity.decisions.limits import (
    LimitKind,
    LimitRefusal,
    limit_refusal,
    question_limit_after,
    split,
    too_wide_reason,
)
from veracity.decisions.reading import DECLINED, UNANSWERED, AnswerReader, Part, refusal
from veracity.transport import CallFailedError, OptionRejectedError
from veracity.transport.errors import first_error
from veracity.transport.retry import ErrorClass
from veracity.transport.urls import public_url
from veracity.types import Usage

if TYPE_CHECKING:  # the SDK takes half a second to import: only when a judge is made
    import openai

# A server's word that a request is longer than its context window (llama-server's
# "exceeds the available context size", vLLM's "maximum context length").
_OVER_WINDOW = re.compile(r"context (?:size|length|window)", re.IGNORECASE)
OVER_WINDOW_ADVICE = (
    "the request is over the server's context window: set --prompt-budget to it (in "
    "tokens; with --truncate-contexts the contexts are cut to fit, else such samples are "
    "invalid_input before any call)"
)
_NOT_IMPLEMENTED = 501
_NOT_FOUND = 404
_VALIDATION = frozenset({400, 422})


class DecisionClient(OpenAIClient):
    """A decision server behind :class:`~veracity.decisions.base.DecisionModel`, through
    the ``openai`` SDK's client (see :class:`~veracity.chat.sdk.SDKClient` for the key,
    retries, throttling and failing endpoints).

    :meth:`decide` splits a request at :attr:`limits` (questions per request, options per
    question) into as few requests as they allow, sent at once. A server refusing a request
    as too large (a 413, or a 400 / 422 naming a limit) teaches the client its limit: the
    request is split by it (by half when the server gives no number) and sent once more,
    and every later request is split by it too; :meth:`describe` says what was learnt, and
    :meth:`negotiated` / :meth:`adopt` let the response cache carry it to the next run."""

    default_limits: ServerLimits
    # The path of the endpoint under the base URL, for messages.
    path: str = ""
    # Where an answer holds a predicate's probability, and the format's name of each
    # question type where it is not veracity's.
    predicate_key: str = "probability"
    wire_types: Mapping[str, str] = {}
    # A server of this format has no default address: without a base URL, no judge.
    needs_base_url: bool = False

    def __init__(
        self,
        model: str,
        *,
        limits: ServerLimits | None = None,
        **endpoint: Unpack[EndpointOptions],
    ) -> None:
        if self.needs_base_url and not (
            endpoint.get("base_url") or os.environ.get(self.base_url_env)
        ):
            raise ValueError(
                f"the {self.provider} judge needs the server's base URL: --base-url or "
                f"{self.base_url_env} (its API root, e.g. http://127.0.0.1:8080/v1)"
            )
        super().__init__(model, **endpoint)
        self.configured = limits or self.default_limits
        if self.configured.max_questions < 1 or self.configured.max_options < 2:
            raise ValueError(
                "a decision server's limits take at least 1 question of 2 options, "
                f"got {self.configured}"
            )
        self._limits = self.configured
        self.learned: list[str] = []
        self.reader = AnswerReader(self._api_key)

    @property
    def limits(self) -> ServerLimits:
        return self._limits

    def describe(self) -> dict[str, Any]:
        described = {**self.endpoint(), "limits": dataclasses.asdict(self._limits)}
        if self.learned:
            described["learned"] = list(self.learned)
        return described

    # ------------------------------------------------------------------ learnt limits

    def negotiation_key(self) -> str:
        """What a learnt limit depends on: the endpoint, the model and the limits given."""
        return self.endpoint_key(self.configured)

    def negotiated(self) -> dict[str, Any]:
        return {"limits": dataclasses.asdict(self._limits), "learned": list(self.learned)}

    def adopt(self, state: Mapping[str, Any]) -> None:
        """Start from the limits an earlier run learnt of this endpoint (never above those
        given): its requests are split by them from the first."""
        try:
            limits = state["limits"]
            learned = [str(note) for note in state["learned"]]
            questions, options = limits["max_questions"], limits["max_options"]
        except (KeyError, TypeError):
            return  # a record of another version: learn afresh
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in (questions, options)):
            return
        self._limits = dataclasses.replace(
            self._limits,
            max_questions=max(1, min(questions, self._limits.max_questions)),
            max_options=max(2, min(options, self._limits.max_options)),
        )
        self.learned = learned

    def _learn(self, refusal_: LimitRefusal, questions: Sequence[Question], why: str) -> bool:
        """Lower a limit after the server refused ``questions`` as too many or too wide;
        ``False`` when the refusal teaches nothing (the request cannot be made smaller)."""
        if refusal_.kind == "questions":
            limit = question_limit_after(refusal_, len(questions))
            if limit is None:
                return False
            if limit < self._limits.max_questions:
                self._limits = dataclasses.replace(self._limits, max_questions=limit)
                self.learned.append(
                    f"the server took at most {limit} questions per request ({why})"
                )
            return True
        widest = max(len(q.options) for q in questions)
        limit = refusal_.limit
        if limit is None or limit >= widest or limit < 2:
            return False  # which question was too wide, the server did not say
        if limit < self._limits.max_options:
            self._limits = dataclasses.replace(self._limits, max_options=limit)
            self.learned.append(f"the server took at most {limit} options per question ({why})")
        return True

    # ------------------------------------------------------------------ deciding

    async def decide(self, request: DecisionRequest, *, iteration: int) -> DecisionReply:
        del iteration  # part of the cache key upstream; the server has no use for it
        started = time.perf_counter()
        try:
            parts = await self._ask(request.state, request.questions, learnt=frozenset())
        except _PartsFailed as failed:
            reply = self._reply(request, failed.parts, started)
            if not reply.answers and not reply.usage.calls:
                raise failed.first from None
            raise PartlyDecidedError(str(failed), reply) from None
        return self._reply(request, parts, started)

    def _reply(
        self, request: DecisionRequest, parts: Sequence[Part], started: float
    ) -> DecisionReply:
        """The parts' answers in the request's order (those that came back), their cost
        and notes."""
        answers: dict[str, Answer] = {}
        usage = Usage()
        notes: list[str] = []
        for part in parts:
            answers.update(part.answers)
            usage += part.usage
            notes.extend(note for note in part.notes if note not in notes)
        models = [part.model for part in parts if part.usage.calls]
        return DecisionReply(
            answers={q.name: answers[q.name] for q in request.questions if q.name in answers},
            usage=usage,
            latency_s=time.perf_counter() - started,
            model=models[0] if models else self.model,
            notes=tuple(notes),
        )

    async def _ask(
        self, state: str, questions: Sequence[Question], *, learnt: frozenset[LimitKind]
    ) -> list[Part]:
        """``questions`` in requests within the limits, at once; a request refused as
        over a limit is split by what it taught and sent once more (once a limit of each
        kind: questions per request, options per question)."""
        limits = self._limits
        requests, too_wide = split(questions, limits)
        parts = [
            Part(
                {q.name: refusal(q, too_wide_reason(q, limits)) for q in too_wide},
                Usage(),
                self.model,
            )
        ]
        if not requests:
            return parts
        try:
            async with asyncio.TaskGroup() as group:
                tasks = [
                    group.create_task(_settled(self._ask_one(state, part, learnt=learnt)))
                    for part in requests
                ]
        except BaseExceptionGroup as failed:
            # A fatal error cancels the other requests; the caller gets the error itself,
            # as from a chat model, not an exception group.
            error = first_error(failed)
            raise error from None
        # A request that failed leaves the others to finish: their answers and tokens count.
        failures: list[CallFailedError] = []
        for task in tasks:
            settled = task.result()
            if isinstance(settled, CallFailedError):
                failures.append(settled)
                if isinstance(settled, _PartsFailed):
                    parts.extend(settled.parts)
            else:
                parts.extend(settled)
        if failures:
            first = failures[0]
            raise _PartsFailed(first.first if isinstance(first, _PartsFailed) else first, parts)
        return parts

    async def _ask_one(
        self, state: str, questions: tuple[Question, ...], *, learnt: frozenset[LimitKind]
    ) -> list[Part]:
        try:
            return [await self._request(state, questions)]
        except OptionRejectedError as exc:
            refused = limit_refusal(_status_of(exc), str(exc).partition(": ")[2])
            if refused is not None and refused.kind == "questions" and len(questions) == 1:
                raise CallFailedError(
                    f"the server refused a request of one question as too large ({exc}): its "
                    "state may be over the server's window"
                ) from None
            if (
                refused is None
                or refused.kind in learnt
                or not self._learn(refused, questions, str(exc))
            ):
                raise CallFailedError(str(exc)) from None
        # Once a limit of each kind: a server over both refuses the one, then the other.
        return await self._ask(state, questions, learnt=learnt | {refused.kind})

    async def _request(self, state: str, questions: tuple[Question, ...]) -> Part:
        client = self.client()
        body = await self.call(lambda: self._send(client, state, questions))
        if not isinstance(body, dict):
            raise CallFailedError(
                f"the server's reply is unusable: {a_json_type(body)}, not an object of answers"
            )
        return self._read(body, questions)

    async def _send(
        self, client: openai.AsyncOpenAI, state: str, questions: tuple[Question, ...]
    ) -> object:
        """The JSON body of the server's reply to one request."""
        raise NotImplementedError

    def _read(self, body: dict[str, Any], questions: tuple[Question, ...]) -> Part:
        """The answers of one reply's JSON object; a body of another shape raises
        :class:`CallFailedError`."""
        raise NotImplementedError

    def answer_of(self, question: Question, answer: object) -> Answer:
        """``question``'s answer as the server sent it (``None``: it sent none), read by
        the type asked; anything else is a refusal saying why."""
        if answer is None:
            return refusal(question, UNANSWERED)
        if not isinstance(answer, dict):
            return self.reader.unusable(question, "it is not an object")
        kind = answer.get("type")
        if kind == "refusal":
            return refusal(question, DECLINED)
        if question.kind == "predicate":
            read: object = answer.get(self.predicate_key)
        else:
            read = self.by_value(question, answer.get("probabilities"))
        wire_type = self.wire_types.get(question.kind, question.kind)
        return self.reader.answer(question, kind, wire_type, read, answer.get("confidence"))

    def by_value(self, question: Question, probabilities: object) -> object:
        """A choice's or score's probabilities by option value, as the format sends them
        (a shape the format does not have is passed on, for the reader to refuse)."""
        raise NotImplementedError

    def usage_of(self, body: Mapping[str, Any]) -> Usage:
        """One real request's cost: its input tokens (decision models generate none)."""
        usage = body.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        return Usage(
            calls=1,
            input_tokens=count(usage.get("input_tokens")),
            output_tokens=count(usage.get("output_tokens")),
        )

    # ------------------------------------------------------------------ errors

    def _classify(self, exc: BaseException) -> ErrorClass | None:
        kind = super()._classify(exc)
        if kind is None or kind.status is None:
            return kind
        details = self.scrubbed(_details(exc) or kind.message)
        where = f"{public_url(self.base_url) or 'the server'}{self.path}"
        if kind.status == _NOT_IMPLEMENTED:
            message = self.not_implemented(where, details)
            return dataclasses.replace(kind, retryable=False, fatal=True, message=message)
        if kind.status == _NOT_FOUND:
            return dataclasses.replace(kind, fatal=True, message=self.not_found(where, details))
        refused = limit_refusal(kind.status, details)
        if refused is not None:
            message = f"HTTP {kind.status}: {details}"
            # Raised as the rejection of an option of the request (its size) and caught by
            # decide(), which splits and asks again.
            return dataclasses.replace(
                kind,
                retryable=False,
                throttled=False,
                message=message,
                rejected_option=refused.kind,
            )
        if kind.status in _VALIDATION:
            message = f"the server refused the request (HTTP {kind.status}): {details}"
            if _OVER_WINDOW.search(details):
                message += f"; {OVER_WINDOW_ADVICE}"
            return dataclasses.replace(kind, message=message)
        return kind

    def not_implemented(self, where: str, details: str) -> str:
        """What a 501 of the endpoint means, and what to do."""
        return f"POST {where} answered 501 (not implemented): {details}"

    def not_found(self, where: str, details: str) -> str:
        """What a 404 of the endpoint means, and what to do."""
        return f"POST {where} answered 404 (not found): {details}"


def _status_of(exc: OptionRejectedError) -> int | None:
    """The status a limit refusal was raised with (its message begins ``HTTP N:``)."""
    head = str(exc).partition(":")[0].removeprefix("HTTP ")
    return int(head) if head.isdigit() else None


def _details(exc: BaseException) -> str:
    """The server's own words in an error's body: FastAPI's validation details, an
    ``error`` (a string or an object with a ``message``), a ``message``, or the text."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        detail = body.get("detail")
        if isinstance(detail, list):
            return "; ".join(_validation_item(item) for item in detail[:5])
        error = body.get("error", detail)
        if isinstance(error, dict):
            error = error.get("message", error)
        found = error if error is not None else body.get("message")
        if found is not None:
            return found if isinstance(found, str) else json.dumps(found, default=str)
        return json.dumps(body, default=str)
    if isinstance(body, str):
        return body
    return ""


def _validation_item(item: object) -> str:
    if isinstance(item, dict):
        location = item.get("loc")
        where = ".".join(map(str, location)) if isinstance(location, list) else ""
        message = str(item.get("msg", item))
        return f"{where}: {message}" if where else message
    return str(item)


class _PartsFailed(CallFailedError):
    """Some of a request's parts failed (``first``: the first error); ``parts`` are those
    that came back."""

    def __init__(self, first: CallFailedError, parts: Sequence[Part]) -> None:
        super().__init__(str(first))
        self.first = first
        self.parts = list(parts)


async def _settled(asking: Awaitable[list[Part]]) -> list[Part] | CallFailedError:
    """What a part's request gave, or how it failed (a fatal error still raises)."""
    try:
        return await asking
    except CallFailedError as exc:
        return exc
