"""Retries with exponential backoff and jitter that honour ``Retry-After``, and the time
bound of each attempt.

The SDKs retry on their own, but we turn that off (``max_retries=0``) and retry here so
both providers behave the same, every attempt waits for a concurrency slot, and the
policy is one object the user can tune. Their timeouts bound each read of a reply, not the
whole of it, so each attempt is bounded here too.
"""

from __future__ import annotations

import asyncio
import email.utils
import errno
import json
import random
import socket
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TypeVar

from veracity._scrub import scrub_secrets
from veracity.transport.bounded import within_deadline
from veracity.transport.errors import (
    CallFailedError,
    JudgeFatalError,
    OptionRejectedError,
    ReplyTooLargeError,
    RetriesExhaustedError,
)
from veracity.transport.limits import Limiter

R = TypeVar("R")

RETRYABLE_STATUS = frozenset({408, 409, 425, 429}) | frozenset(range(500, 600))
FATAL_STATUS = frozenset({401, 403, 404})
THROTTLE_STATUS = frozenset({429, 529})


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """``max_attempts`` bounds failures (5xx, timeouts, dropped connections); being
    throttled is not a failure and is bounded by time instead: a call gives up after
    ``max_throttled_s`` seconds of waiting on 429s. An endpoint that no request has reached
    yet in this run (connection refused, unknown host), or that has not answered one call in
    time yet, gets ``max_unreachable_attempts`` tries before the judge is declared unusable:
    a wrong URL, a server that is down or a timeout too short for it would otherwise cost
    every sample the whole backoff. Likewise, once ``max_unanswered_calls`` calls in a row
    have failed every attempt and no call of the run has ever been answered, the endpoint
    is declared failing (see the chat models' ``call``)."""

    max_attempts: int = 8
    max_unreachable_attempts: int = 3
    max_unanswered_calls: int = 3
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0
    max_retry_after_s: float = 120.0
    max_throttled_s: float = 900.0

    def delay_s(self, attempt: int, retry_after_s: float | None, rng: random.Random) -> float:
        """Seconds to wait before attempt ``attempt + 1`` (``attempt`` counts from 1)."""
        if retry_after_s is not None:
            # A little jitter past the server's hint, so waiting callers don't return in a herd.
            return min(retry_after_s, self.max_retry_after_s) * rng.uniform(1.0, 1.2)
        ceiling = min(self.max_delay_s, self.base_delay_s * 2 ** (attempt - 1))
        return rng.uniform(ceiling / 2, ceiling)


def retry_after_from_headers(headers: Mapping[str, str]) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    lowered = {key.lower(): value for key, value in headers.items()}
    if (millis := lowered.get("retry-after-ms")) is not None:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


@dataclass(frozen=True, slots=True)
class ErrorClass:
    """How to treat one failed attempt."""

    retryable: bool
    fatal: bool
    message: str
    retry_after_s: float | None = None
    throttled: bool = False
    unreachable: bool = False  # no server answered: refused, unknown host, no route
    timed_out: bool = False  # no complete reply within the attempt's time bound
    status: int | None = None
    # The request option the endpoint refused (see OptionRejectedError), if that is the cause.
    rejected_option: str | None = None


def classify_sdk_error(
    exc: BaseException,
    transient: tuple[type[BaseException], ...],
    endpoint: str | None = None,
    key: str | None = None,
) -> ErrorClass | None:
    """Classify an exception of the openai / anthropic SDKs (they share their error shapes);
    ``endpoint`` (a URL safe to show) names where a connection failed. Every message is
    scrubbed of ``key`` (the one sent) and of anything else shaped like a credential: an
    endpoint may echo them, and the messages are stored, cached and printed."""
    too_large = _in_chain(exc, ReplyTooLargeError)
    if too_large is not None:  # the same reply again would be as large: not retried
        return ErrorClass(retryable=False, fatal=False, message=str(too_large))
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None) or {}
        retry_after = retry_after_from_headers(headers)
        return ErrorClass(
            retryable=status in RETRYABLE_STATUS,
            fatal=status in FATAL_STATUS,
            message=f"HTTP {status}: {_short(exc, key, named=False)}",
            retry_after_s=retry_after,
            status=status,
            # 429, Anthropic's 529 "overloaded", or any retryable reply naming a wait.
            throttled=status in THROTTLE_STATUS
            or (retry_after is not None and status in RETRYABLE_STATUS),
        )
    if isinstance(exc, (*transient, TimeoutError, json.JSONDecodeError)):
        # Timeouts, dropped connections, truncated or non-JSON bodies: worth another try.
        refused = _connect_failure(exc)
        if refused is not None:
            where = f" to {endpoint}" if endpoint else ""
            message = f"cannot connect{where}: {_short(refused, key)}"
            return ErrorClass(retryable=True, fatal=False, message=message, unreachable=True)
        return ErrorClass(
            retryable=True,
            fatal=False,
            message=_short(exc, key),
            timed_out=isinstance(exc, TimeoutError),
        )
    # Anything else is a bug on our side, not a judge failure: let it surface.
    return None


_NO_ROUTE = frozenset({errno.EHOSTUNREACH, errno.ENETUNREACH})


def _connect_failure(exc: BaseException) -> OSError | None:
    """The OS error behind ``exc`` if no server was reached at all (refused, unknown host,
    no route); ``None`` for a timeout or a connection that dropped mid-call. The SDKs wrap
    it in their HTTP library's errors, so the chain is walked rather than a type checked."""
    for current in _chain(exc):
        if isinstance(current, ConnectionRefusedError | socket.gaierror) or (
            isinstance(current, OSError) and current.errno in _NO_ROUTE
        ):
            return current
    return None


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and the errors it was raised from or during, innermost last."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


E = TypeVar("E", bound=BaseException)


def _in_chain(exc: BaseException, kind: type[E]) -> E | None:
    """The first error of ``kind`` in ``exc``'s chain (an SDK may wrap it in its own)."""
    return next((found for found in _chain(exc) if isinstance(found, kind)), None)


def _short(exc: BaseException, key: str | None, *, named: bool = True, limit: int = 300) -> str:
    # Scrubbed before it is cut: a key cut in two would no longer be recognised.
    text = scrub_secrets(str(exc).strip(), key)
    if named:
        text = f"{type(exc).__name__}: {text}".rstrip(": ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def call_with_retries(  # noqa: PLR0912 - every outcome of an attempt, in one place
    attempt: Callable[[], Awaitable[R]],
    *,
    classify: Callable[[BaseException], ErrorClass | None],
    policy: RetryPolicy,
    limiter: Limiter,
    rng: random.Random,
    timeout_s: float | None = None,
    on_failure: Callable[[ErrorClass], None] | None = None,
) -> tuple[R, int]:
    """Run ``attempt`` until it succeeds; return its value and the number of attempts.
    Each attempt gets ``timeout_s`` seconds once it has its slot (``None``: no bound);
    ``on_failure`` hears of each failed attempt as it is classified.

    Raises :class:`JudgeFatalError` for errors no retry can fix, :class:`CallFailedError`
    when the time spent throttled runs out, and :class:`RetriesExhaustedError` when the
    failures do. Neither chains the SDK's
    exception (``from None``): it holds the endpoint's words unscrubbed, and a traceback
    would print them.
    """
    attempts = failures = throttles = 0
    throttled_s = 0.0
    while True:
        attempts += 1
        try:
            async with limiter.slot():
                value = await within_deadline(attempt, timeout_s)
            limiter.succeeded()
            return value, attempts
        except (JudgeFatalError, CallFailedError):
            raise
        except Exception as exc:
            kind = classify(exc)
            if kind is None:
                raise
            if on_failure is not None:
                on_failure(kind)
            if kind.fatal:
                raise JudgeFatalError(kind.message) from None
            if kind.rejected_option is not None:
                raise OptionRejectedError(kind.message, kind.rejected_option) from None
            if not kind.retryable:
                raise CallFailedError(kind.message) from None
            if kind.throttled:
                throttles += 1
                pause = policy.delay_s(throttles, kind.retry_after_s, rng)
                throttled_s += pause
                if throttled_s > policy.max_throttled_s:
                    raise CallFailedError(
                        f"still throttled after waiting {throttled_s:.0f} s; "
                        f"last error: {kind.message}"
                    ) from None
                # The pause applies to every caller: the limiter holds them all back.
                limiter.throttled(pause)
                continue
            failures += 1
            if (kind.unreachable or kind.timed_out) and not limiter.answered:
                if failures >= policy.max_unreachable_attempts:
                    raise JudgeFatalError(
                        f"{kind.message} ({failures} attempts; {_hint(kind)})"
                    ) from None
            elif failures >= policy.max_attempts:
                raise RetriesExhaustedError(
                    f"gave up after {failures} failed attempts; last error: {kind.message}"
                ) from None
            await asyncio.sleep(policy.delay_s(failures, kind.retry_after_s, rng))


def _hint(kind: ErrorClass) -> str:
    """What a judge no call has got through to yet should have checked."""
    if kind.unreachable:
        return (
            "no request has reached it in this run: "
            "check the base URL and that the server is running"
        )
    return "no call has been answered in time in this run: it may need a longer timeout"
