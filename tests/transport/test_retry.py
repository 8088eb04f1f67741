"""Retry policy: backoff with jitter, Retry-After, what is retried and what is fatal."""

from __future__ import annotations

import asyncio
import dataclasses
import email.utils
import errno
import random
import socket
import time
from collections.abc import Awaitable, Callable

import pytest

from veracity.judges import JudgeFatalError
from veracity.transport import (
    CallFailedError,
    RequestLimiter,
    RetryPolicy,
    retry_after_from_headers,
)
from veracity.transport.retry import ErrorClass, call_with_retries, classify_sdk_error


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "2"}, 2.0),
        ({"retry-after": "0.25"}, 0.25),
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ({"retry-after": "soon"}, None),
        ({}, None),
        ({"retry-after": "-3"}, 0.0),
    ],
)
def test_retry_after_header_forms(headers: dict[str, str], expected: float | None) -> None:
    assert retry_after_from_headers(headers) == expected


def test_retry_after_http_date() -> None:
    when = email.utils.formatdate(time.time() + 30, usegmt=True)
    seconds = retry_after_from_headers({"Retry-After": when})
    assert seconds is not None and 25 <= seconds <= 31


def test_backoff_grows_exponentially_with_jitter_and_is_capped() -> None:
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=8.0)
    rng = random.Random(1)
    for attempt, ceiling in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (9, 8.0)]:
        delays = {policy.delay_s(attempt, None, rng) for _ in range(20)}
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert len(delays) > 1  # jittered


def test_retry_after_wins_over_backoff() -> None:
    policy = RetryPolicy(base_delay_s=10.0, max_retry_after_s=60.0)
    rng = random.Random(0)
    assert 0.3 <= policy.delay_s(5, 0.3, rng) <= 0.36
    assert policy.delay_s(1, 1000.0, rng) <= 72.0  # capped


def _fast_policy(attempts: int = 4) -> RetryPolicy:
    return RetryPolicy(max_attempts=attempts, base_delay_s=0.001, max_delay_s=0.002)


class Flaky(Exception):
    pass


async def retry(
    attempt: Callable[[], Awaitable[str]],
    kind: ErrorClass,
    *,
    policy: RetryPolicy,
    limiter: RequestLimiter,
) -> tuple[str, int]:
    """Retry ``attempt``, every failure of which is classified as ``kind``."""
    return await call_with_retries(
        attempt,
        classify=lambda exc: dataclasses.replace(kind, message=str(exc)),
        policy=policy,
        limiter=limiter,
        rng=random.Random(0),
    )


async def test_retryable_errors_are_retried_until_success() -> None:
    failures = [Flaky("503"), Flaky("503")]

    async def attempt() -> str:
        if failures:
            raise failures.pop()
        return "ok"

    value, attempts = await retry(
        attempt,
        ErrorClass(retryable=True, fatal=False, message=""),
        policy=_fast_policy(),
        limiter=RequestLimiter(2),
    )
    assert (value, attempts) == ("ok", 3)


async def test_running_out_of_attempts_is_a_chat_call_error_naming_the_last_error() -> None:
    async def attempt() -> str:
        raise Flaky("HTTP 500: boom")

    with pytest.raises(CallFailedError, match=r"after 3 failed attempts.*HTTP 500: boom"):
        await retry(
            attempt,
            ErrorClass(retryable=True, fatal=False, message=""),
            policy=_fast_policy(3),
            limiter=RequestLimiter(1),
        )


async def test_fatal_errors_stop_at_once() -> None:
    calls = 0

    async def attempt() -> str:
        nonlocal calls
        calls += 1
        raise Flaky("HTTP 401: bad key")

    with pytest.raises(JudgeFatalError, match="401"):
        await retry(
            attempt,
            ErrorClass(retryable=False, fatal=True, message=""),
            policy=_fast_policy(),
            limiter=RequestLimiter(1),
        )
    assert calls == 1


async def test_non_retryable_errors_are_not_retried() -> None:
    calls = 0

    async def attempt() -> str:
        nonlocal calls
        calls += 1
        raise Flaky("HTTP 400: bad request")

    with pytest.raises(CallFailedError, match="400"):
        await retry(
            attempt,
            ErrorClass(retryable=False, fatal=False, message=""),
            policy=_fast_policy(),
            limiter=RequestLimiter(1),
        )
    assert calls == 1


async def test_retry_after_waits_at_least_that_long_and_counts_throttling() -> None:
    failures = [Flaky("429")]
    limiter = RequestLimiter(1)

    async def attempt() -> str:
        if failures:
            raise failures.pop()
        return "ok"

    started = time.perf_counter()
    await retry(
        attempt,
        ErrorClass(retryable=True, fatal=False, message="", retry_after_s=0.2, throttled=True),
        policy=_fast_policy(),
        limiter=limiter,
    )
    assert time.perf_counter() - started >= 0.2
    assert limiter.throttle_events == 1
    assert limiter.current_limit == 1  # halved from 1, floored at 1


def test_concurrency_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        RequestLimiter(0)


async def test_throttling_pauses_everyone_and_halves_the_limit_once_per_pause() -> None:
    limiter = RequestLimiter(16)
    async with limiter.slot():
        pass
    for _ in range(10):  # one burst of 429s
        limiter.throttled(0.2)
    assert limiter.throttle_events == 10
    assert limiter.current_limit == 8
    started = time.perf_counter()
    async with limiter.slot():
        waited = time.perf_counter() - started
    assert waited >= 0.15
    for _ in range(40):
        limiter.succeeded()
    assert limiter.current_limit > 8  # additive increase after successes


async def test_slots_never_exceed_the_limit() -> None:
    limiter = RequestLimiter(3)
    in_flight = peak = 0

    async def task() -> None:
        nonlocal in_flight, peak
        async with limiter.slot():
            in_flight += 1
            peak = max(peak, in_flight)
            await asyncio.sleep(0.01)
            in_flight -= 1

    await asyncio.gather(*(task() for _ in range(20)))
    assert peak == 3


async def test_429s_do_not_use_up_the_failure_budget() -> None:
    throttles = [Flaky("429")] * 12  # more than max_attempts

    async def attempt() -> str:
        if throttles:
            raise throttles.pop()
        return "ok"

    value, attempts = await retry(
        attempt,
        ErrorClass(retryable=True, fatal=False, message="", retry_after_s=0.001, throttled=True),
        policy=_fast_policy(attempts=3),
        limiter=RequestLimiter(4),
    )
    assert (value, attempts) == ("ok", 13)


async def test_throttling_gives_up_after_its_time_budget() -> None:
    async def attempt() -> str:
        raise Flaky("HTTP 429: slow down")

    with pytest.raises(CallFailedError, match="still throttled"):
        await retry(
            attempt,
            ErrorClass(retryable=True, fatal=False, message="", retry_after_s=0.05, throttled=True),
            policy=RetryPolicy(max_throttled_s=0.2),
            limiter=RequestLimiter(1),
        )


def _refused() -> Exception:
    """An SDK-like connection error whose cause is a refused connection."""
    try:
        raise ConnectionRefusedError(111, "Connect call failed")
    except ConnectionRefusedError as inner:
        error = Flaky("Connection error.")
        error.__cause__ = inner
        return error


@pytest.mark.parametrize(
    ("cause", "unreachable"),
    [
        (ConnectionRefusedError(111, "refused"), True),
        (socket.gaierror(-2, "Name or service not known"), True),
        (OSError(errno.EHOSTUNREACH, "No route to host"), True),
        (ConnectionResetError(104, "reset by peer"), False),  # reached, then dropped
        (TimeoutError("timed out"), False),
        (None, False),
    ],
)
def test_a_connection_that_reached_no_server_is_told_apart(
    cause: BaseException | None, unreachable: bool
) -> None:
    error = Flaky("Connection error.")
    error.__cause__ = cause
    kind = classify_sdk_error(error, (Flaky,), "http://127.0.0.1:9/v1")
    assert kind is not None and kind.retryable and kind.unreachable is unreachable
    if unreachable:
        assert kind.message.startswith("cannot connect to http://127.0.0.1:9/v1: ")


async def _calls_until_given_up(
    limiter: RequestLimiter, attempts: int, error: type[Exception], match: str
) -> int:
    """How many calls an always-refused endpoint gets before ``error`` is raised."""
    calls = 0

    async def attempt() -> str:
        nonlocal calls
        calls += 1
        raise _refused()

    with pytest.raises(error, match=match):
        await call_with_retries(
            attempt,
            classify=lambda exc: classify_sdk_error(exc, (Flaky,), "http://x"),
            policy=_fast_policy(attempts),
            limiter=limiter,
            rng=random.Random(0),
        )
    return calls


async def test_an_endpoint_never_reached_is_fatal_after_a_few_attempts() -> None:
    calls = await _calls_until_given_up(
        RequestLimiter(1), 8, JudgeFatalError, "3 attempts; no request has reached it"
    )
    assert calls == RetryPolicy().max_unreachable_attempts == 3


async def test_an_endpoint_that_answered_before_gets_every_attempt() -> None:
    limiter = RequestLimiter(1)
    limiter.succeeded()
    calls = await _calls_until_given_up(
        limiter, 5, CallFailedError, "after 5 failed attempts; last error: cannot"
    )
    assert calls == 5
