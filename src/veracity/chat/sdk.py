"""What the SDK-backed chat models share: settings, a client per event loop, retries, and
the negotiation of request options with the endpoint."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypedDict, TypeVar, Unpack

from veracity._scrub import scrub_secrets
from veracity.chat.base import ChatReply
from veracity.chat.modes import STRUCTURED_OUTPUT_FALLBACK, StructuredOutput
from veracity.prompts import ChatMessage, OutputSpec
from veracity.transport import JudgeFailingError, OptionRejectedError, RetriesExhaustedError
from veracity.transport.credentials import resolve_endpoint
from veracity.transport.limits import (
    DEFAULT_CONCURRENCY,
    DEFAULT_TIMEOUT_S,
    RequestLimiter,
    checked_timeout,
)
from veracity.transport.retry import ErrorClass, RetryPolicy, call_with_retries
from veracity.transport.urls import public_url

ClientT = TypeVar("ClientT")
R = TypeVar("R")

# Local servers (vLLM, Ollama, llama.cpp) take any key; the SDKs insist on one.
PLACEHOLDER_KEY = "not-needed"


@dataclass(frozen=True, slots=True)
class RequestOptions:
    """The options a request is sent with, as far as the endpoint has accepted them."""

    structured_output: StructuredOutput
    logprobs: bool
    temperature: float | None
    # OpenAI's reasoning models take only ``max_completion_tokens``; most servers both.
    token_limit: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"


def _without(option: str, options: RequestOptions) -> tuple[RequestOptions, str] | None:
    """``options`` with ``option`` stepped down and what changed, or ``None`` when it
    cannot step further."""
    if option == "logprobs" and options.logprobs:
        return dataclasses.replace(options, logprobs=False), "no logprobs"
    if option == "temperature" and options.temperature is not None:
        return dataclasses.replace(options, temperature=None), "the endpoint's own temperature"
    if option == "max_tokens" and options.token_limit == "max_tokens":
        changed = dataclasses.replace(options, token_limit="max_completion_tokens")
        return changed, "max_completion_tokens"
    fallback = STRUCTURED_OUTPUT_FALLBACK[options.structured_output]
    if option == "response_format" and fallback is not None:
        return dataclasses.replace(options, structured_output=fallback), fallback
    return None


# Statuses with which endpoints refuse an option they do not take: 400 and 422 as usual,
# 500 from servers that fail validating the request (llama-cpp-python's for json_schema).
_REJECTING_STATUS = frozenset({400, 422, 500})


def as_rejection(
    kind: ErrorClass | None, option_words: Sequence[tuple[str, tuple[str, ...]]]
) -> ErrorClass | None:
    """``kind`` marked as the rejection of an option when its message names one
    (``option_words``: each option with the words that name it, checked in order)."""
    if kind is None or kind.status not in _REJECTING_STATUS:
        return kind
    message = kind.message.lower()
    for option, words in option_words:
        if any(word in message for word in words):
            return dataclasses.replace(kind, retryable=False, rejected_option=option)
    return kind


def count(value: object) -> int:
    """A token count from a reply: a non-negative int, else 0 (an endpoint may send any)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _gist(message: str, limit: int = 240) -> str:
    """An endpoint's error message up to its first blank line (servers append their own
    tracebacks), on one line and at most ``limit`` characters."""
    first = " ".join(message.split("\n\n", 1)[0].split())
    return first if len(first) <= limit else first[: limit - 1] + "…"


class EndpointOptions(TypedDict, total=False):
    """The settings every SDK-backed model takes (see :class:`SDKClient`)."""

    base_url: str | None
    api_key: str | None
    concurrency: int
    rpm: float | None
    timeout_s: float
    retry: RetryPolicy | None
    seed: int | None


class ChatOptions(EndpointOptions, total=False):
    """The settings every SDK chat model takes (see :class:`SDKChat`)."""

    structured_output: StructuredOutput
    logprobs: bool
    temperature: float | None


class SDKClient(Generic[ClientT]):
    """A provider's SDK client behind a model of veracity's: the key and base URL from the
    arguments, else from the provider's environment variables (the key is held in memory
    only, never described or written), a client per event loop, retries through the
    :class:`RetryPolicy` and one :class:`RequestLimiter`, and the words of an endpoint
    scrubbed of keys.

    A run whose calls all fail (``retry.max_unanswered_calls`` in a row, each after all its
    attempts) with none ever answered stops with :class:`JudgeFailingError`.
    """

    provider: str = ""
    role: str = "judge"  # what the model is to the user, in the messages
    key_env: str = ""
    base_url_env: str = ""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        rpm: float | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        retry: RetryPolicy | None = None,
        seed: int | None = None,
    ) -> None:
        endpoint = resolve_endpoint(
            f"{self.provider} {self.role}",
            base_url,
            api_key,
            key_env=self.key_env,
            base_url_env=self.base_url_env,
        )
        self.model = model
        self.base_url = endpoint.base_url
        self._api_key = endpoint.api_key
        self.timeout_s = checked_timeout(timeout_s)
        self.retry = retry or RetryPolicy()
        self.limiter = RequestLimiter(concurrency, rpm)
        self._unanswered: tuple[asyncio.AbstractEventLoop | None, int] = (None, 0)
        self._rng = random.Random(seed)
        self._client: ClientT | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None

    def __getstate__(self) -> dict[str, Any]:
        # A copy in another process (a Ray worker) opens its own client, on its own loop.
        return {**self.__dict__, "_client": None, "_client_loop": None, "_unanswered": (None, 0)}

    @property
    def name(self) -> str:
        return f"{self.provider}/{self.model}"

    @property
    def concurrency(self) -> int:
        return self.limiter.concurrency

    def _attempt_failed(self, kind: ErrorClass) -> None:
        """Hears of each failed attempt as it is classified (nothing to do by default)."""

    def _make_client(self, api_key: str) -> ClientT:
        raise NotImplementedError

    async def _close_client(self, client: ClientT) -> None:
        raise NotImplementedError

    def _classify(self, exc: BaseException) -> ErrorClass | None:
        raise NotImplementedError

    def client(self) -> ClientT:
        # SDK clients hold connection pools bound to one event loop; each asyncio.run gets
        # a fresh one.
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            self._client = self._make_client(self._api_key or PLACEHOLDER_KEY)
            self._client_loop = loop
        return self._client

    async def call(
        self, attempt: Callable[[], Awaitable[R]], *, timeout_s: float | None = None
    ) -> R:
        """``attempt`` with retries, each bounded by ``timeout_s`` (default: the model's)."""
        try:
            value, _ = await call_with_retries(
                attempt,
                classify=self._classify,
                policy=self.retry,
                limiter=self.limiter,
                rng=self._rng,
                timeout_s=self.timeout_s if timeout_s is None else timeout_s,
                on_failure=self._attempt_failed,
            )
        except RetriesExhaustedError as exc:
            self._gave_up(exc)
            raise
        self._unanswered = (asyncio.get_running_loop(), 0)
        return value

    def _gave_up(self, exc: RetriesExhaustedError) -> None:
        """Count a call that failed every attempt; raise :class:`JudgeFailingError` when
        enough have in a row and none of the run (this event loop) was ever answered."""
        if self.limiter.answered:
            return
        loop = asyncio.get_running_loop()
        counted_loop, failed = self._unanswered
        failed = failed + 1 if counted_loop is loop else 1
        self._unanswered = (loop, failed)
        if failed >= self.retry.max_unanswered_calls:
            raise JudgeFailingError(
                f"{failed} calls in a row failed {self.retry.max_attempts} attempts each and "
                "no call of this run has been answered: the server is failing, not busy "
                "(check its logs, or try again once it answers; slowing down will not help); "
                f"{exc}"
            ) from None

    def endpoint(self) -> dict[str, Any]:
        """What every description of an SDK-backed model says: the endpoint, the model and
        how calls are made (never the key)."""
        return {
            "provider": self.provider,
            "model": self.model,
            "base_url": public_url(self.base_url),
            "timeout_s": self.timeout_s,
            "concurrency": self.concurrency,
            "rpm": self.limiter.rpm,
            "max_attempts": self.retry.max_attempts,
        }

    def endpoint_key(self, asked: object) -> str:
        """What what is learnt of the endpoint depends on: the endpoint, the model and what
        was ``asked`` of it (the options requested, the limits given)."""
        return "|".join((self.provider, public_url(self.base_url) or "", self.model, repr(asked)))

    def model_of(self, reported: object) -> str:
        """The model the endpoint says answered (scrubbed), else the one asked."""
        return (
            self.scrubbed(reported, 200) if isinstance(reported, str) and reported else self.model
        )

    def scrubbed(self, text: str, limit: int = 300) -> str:
        """An endpoint's words on one line, without the key (or anything like one)."""
        return scrub_secrets(" ".join(text.split()), self._api_key)[:limit]

    async def aclose(self) -> None:
        client, self._client = self._client, None
        # A client of an event loop that has ended has nothing left to close.
        if client is not None and self._client_loop is asyncio.get_running_loop():
            await self._close_client(client)


class SDKChat(SDKClient[ClientT]):
    """A provider's SDK behind :class:`~veracity.chat.base.ChatModel` (see
    :class:`SDKClient` for the endpoint, retries and failing endpoints).

    Negotiation: ``structured_output`` and ``logprobs`` are what to ask for first. An
    endpoint that rejects one of them (:class:`OptionRejectedError`) costs one failed call:
    the model steps down (json_schema → json_object_schema → json_object → text;
    logprobs off) for every later call and notes why. Until a first call has succeeded the
    calls queue behind it, so a run pays for a rejection once, not once per call in flight;
    an HTTP error that names no option (a 500 of a failing server) opens the queue at once,
    the options being no part of it.
    """

    # What an error message names when it is about an option, by the option to drop.
    option_words: Sequence[tuple[str, tuple[str, ...]]] = ()

    def __init__(
        self,
        model: str,
        *,
        structured_output: StructuredOutput = "json_schema",
        logprobs: bool = True,
        temperature: float | None = 0.0,
        **endpoint: Unpack[EndpointOptions],
    ) -> None:
        super().__init__(model, **endpoint)
        self.requested = RequestOptions(structured_output, logprobs, temperature)
        self.options = self.requested
        self.notes: list[str] = []
        self._settled = False
        self._probing = False  # a call is finding out which options the endpoint takes
        self._negotiating: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {**super().__getstate__(), "_negotiating": None, "_probing": False}

    def describe(self) -> dict[str, Any]:
        described = {**self.endpoint(), **dataclasses.asdict(self.options)}
        if self.notes:
            described["negotiation"] = list(self.notes)
        return described

    # ------------------------------------------------------------------ negotiation

    def negotiation_key(self) -> str:
        """What the outcome of a negotiation depends on: the endpoint and what was asked."""
        return self.endpoint_key(self.requested)

    def negotiated(self) -> dict[str, Any]:
        return {
            "options": dataclasses.asdict(self.options),
            "notes": list(self.notes),
            "settled": self._settled,
        }

    def adopt(self, state: Mapping[str, Any]) -> None:
        """Start from what an earlier run learnt of this endpoint: no failed call again and,
        once a call was answered with these options, no first call asked alone (a run would
        wait out one whole call before its others went; should the endpoint have changed
        since, each call in flight steps down as it is refused)."""
        try:
            self.options = RequestOptions(**state["options"])
            self.notes = [str(note) for note in state["notes"]]
        except (KeyError, TypeError):
            return  # a record of another version: negotiate afresh
        self._settled = self._settled or state.get("settled") is True

    def rejection(self, status: int | None, message: str) -> OptionRejectedError | None:
        """The endpoint's error (``status``, ``message``) as the rejection of an option,
        if it is one (a batch's requests fail one by one, not as a raised error)."""
        kind = ErrorClass(retryable=False, fatal=False, message=message, status=status)
        option = as_rejection(kind, self.option_words)
        if option is None or option.rejected_option is None:
            return None
        return OptionRejectedError(message, option.rejected_option)

    def step_down(self, tried: RequestOptions, exc: OptionRejectedError) -> bool:
        """Drop what the endpoint rejected; ``False`` when there is nothing left to drop."""
        if tried != self.options:
            return True  # another call stepped down meanwhile: try again as it does now
        stepped = _without(exc.option, tried)
        if stepped is None:
            return False
        self.options, now = stepped
        what = tried.structured_output if exc.option == "response_format" else exc.option
        self.notes.append(f"the endpoint rejected {what}; using {now} ({_gist(str(exc))})")
        return True

    def _turn(self) -> asyncio.Event:
        """Set when a waiting call may go: no call is probing the endpoint's options."""
        loop = asyncio.get_running_loop()
        if self._negotiating is None or self._negotiating[0] is not loop:
            self._negotiating = (loop, asyncio.Event())
            self._probing = False
        return self._negotiating[1]

    async def complete(
        self, messages: Sequence[ChatMessage], output: OutputSpec, *, iteration: int
    ) -> ChatReply:
        del iteration  # part of the cache key upstream; the endpoint has no use for it
        turn = self._turn()
        while not self._settled and self._probing:
            await turn.wait()
        if self._settled:
            return await self._negotiating_call(messages, output)
        self._probing = True
        turn.clear()
        try:
            reply = await self._negotiating_call(messages, output)
            self._settled = True
            return reply
        finally:
            self._probing = False
            turn.set()

    def _attempt_failed(self, kind: ErrorClass) -> None:
        """An error that names no option is the same whatever options are asked: the calls
        waiting on the negotiation need not wait (each would only fail in turn, slowly)."""
        if kind.status is not None and kind.rejected_option is None and not kind.throttled:
            self._settled = True
            self._turn().set()

    async def _negotiating_call(
        self, messages: Sequence[ChatMessage], output: OutputSpec
    ) -> ChatReply:
        while True:
            tried = self.options
            try:
                return await self._complete_with(tried, messages, output)
            except OptionRejectedError as exc:
                if not self.step_down(tried, exc):
                    raise

    async def _complete_with(
        self, options: RequestOptions, messages: Sequence[ChatMessage], output: OutputSpec
    ) -> ChatReply:
        raise NotImplementedError
