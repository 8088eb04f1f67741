"""The limits on judge calls: how many are in flight (backing off when the endpoint
throttles), and how long one may take."""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, suppress
from typing import Protocol

# Judge calls in flight, and seconds one may take, when nobody says otherwise.
DEFAULT_CONCURRENCY = 16
DEFAULT_TIMEOUT_S = 60.0
# How long a decision judge holds questions about one text for others to join them in
# one request (seconds of quiet).
DEFAULT_GROUPING_S = 0.02


class Limiter(Protocol):
    """What a call needs of its limits: a slot to go in, and word of how it went. A
    :class:`RequestLimiter` in this process, or a proxy to one a whole cluster shares
    (:mod:`veracity.runner.ray_shared`)."""

    concurrency: int
    rpm: float | None
    answered: bool  # whether any call through the limiter has succeeded

    def slot(self) -> AbstractAsyncContextManager[None]: ...

    def succeeded(self) -> None: ...

    def throttled(self, pause_s: float) -> None: ...


class RequestLimiter:
    """At most ``concurrency`` calls at once (and, with ``rpm``, at most that many starts a
    minute, evenly spaced), shared by every metric of a run.

    When the endpoint throttles (HTTP 429, or any reply with ``Retry-After``), every
    caller pauses until the time it named, and the allowed concurrency is halved
    (at most once per pause, so one burst of 429s counts once); each success then adds
    back about one slot per ``limit`` successes (additive increase, multiplicative
    decrease). A run against a rate-limited endpoint thus settles just under the limit
    instead of hammering it.

    The asyncio primitives are made per event loop, so one judge can serve several
    ``asyncio.run`` calls.
    """

    def __init__(self, concurrency: int, rpm: float | None = None) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency}")
        if rpm is not None and not (math.isfinite(rpm) and rpm > 0):
            raise ValueError(f"rpm must be a positive number, got {rpm}")
        self.concurrency = concurrency
        self.rpm = rpm
        self._next_start = 0.0
        self.throttle_events = 0
        self.answered = False  # whether any call through this limiter has succeeded
        self._limit = float(concurrency)
        self._in_flight = 0
        self._resume_at = 0.0
        self._last_cut_at = -math.inf
        self._loop: asyncio.AbstractEventLoop | None = None
        self._condition: asyncio.Condition | None = None

    @property
    def current_limit(self) -> int:
        return max(1, int(self._limit))

    def _state(self) -> tuple[asyncio.AbstractEventLoop, asyncio.Condition]:
        loop = asyncio.get_running_loop()
        if self._condition is None or self._loop is not loop:
            self._loop, self._condition = loop, asyncio.Condition()
            self._in_flight, self._resume_at, self._next_start = 0, 0.0, 0.0
        return loop, self._condition

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        loop, condition = self._state()
        async with condition:
            while True:
                pause = self._resume_at - loop.time()
                if pause > 0:
                    # Condition.wait releases the lock while paused; a notify or the
                    # timeout both lead back to re-checking.
                    with suppress(TimeoutError):
                        await asyncio.wait_for(condition.wait(), timeout=pause)
                    continue
                if self._in_flight < self.current_limit:
                    break
                await condition.wait()
            self._in_flight += 1
            if self.rpm is not None:
                # Requests start at most rpm a minute, evenly spaced: the schedule is
                # claimed under the lock, the wait happens outside it.
                start = max(loop.time(), self._next_start)
                self._next_start = start + 60.0 / self.rpm
                delay = start - loop.time()
            else:
                delay = 0.0
        try:
            if delay > 0:
                await asyncio.sleep(delay)
            yield
        finally:
            async with condition:
                self._in_flight -= 1
                # The limit may have grown since: wake as many as may now go.
                condition.notify(max(1, self.current_limit - self._in_flight))

    def succeeded(self) -> None:
        self.answered = True
        self._limit = min(float(self.concurrency), self._limit + 1.0 / self._limit)

    def throttled(self, pause_s: float) -> None:
        """The endpoint asked us to slow down: pause everyone ``pause_s`` and cut the limit."""
        loop, _ = self._state()
        now = loop.time()
        self.throttle_events += 1
        self._resume_at = max(self._resume_at, now + pause_s)
        if now >= self._last_cut_at + max(pause_s, 0.05):
            self._limit = max(1.0, self._limit / 2)
            self._last_cut_at = now


def checked_timeout(seconds: float) -> float:
    """``seconds`` if it can bound a call: a positive, finite number."""
    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"the timeout must be a positive number of seconds, got {seconds}")
    return seconds
