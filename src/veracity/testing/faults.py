"""Fault injection for the fake LLM server: what can go wrong, and how often."""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Literal

from veracity.testing.mangle import MANGLINGS, Mangling

FaultKind = Literal[
    "rate_limit",
    "status_5xx",
    "drop_connection",
    "malformed_body",
    "truncated_body",
    "malformed_content",
]
SERVER_ERROR_STATUSES = (500, 502, 503)


@dataclass(frozen=True)
class Faults:
    """Faults to inject; all off by default. Probabilities are per request.

    - ``rate_limit_rps``: a token bucket (capacity ``rate_limit_burst``, default
      ``max(1, rate_limit_rps)``); a request finding it empty gets HTTP 429 with
      ``Retry-After`` (seconds, decimal) and ``retry-after-ms`` headers.
    - ``status_5xx``: HTTP 500, 502 or 503 with a JSON error body.
    - ``drop_connection``: the socket is closed without any response.
    - ``malformed_body``: HTTP 200 whose body is not JSON.
    - ``truncated_body``: HTTP 200 whose ``Content-Length`` promises more bytes than are
      sent before the socket is closed.
    - ``malformed_content``: a valid response whose assistant text is mangled (see
      :data:`~veracity.testing.mangle.MANGLINGS`); chat endpoints only.

    At most one fault hits a request; the checks run in the order listed above.
    """

    rate_limit_rps: float | None = None
    rate_limit_burst: float | None = None
    status_5xx: float = 0.0
    drop_connection: float = 0.0
    malformed_body: float = 0.0
    truncated_body: float = 0.0
    malformed_content: float = 0.0

    def __post_init__(self) -> None:
        for name in ("rate_limit_rps", "rate_limit_burst"):
            value = getattr(self, name)
            if value is not None and not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive number or None, not {value!r}")
        if self.rate_limit_burst is not None and self.rate_limit_burst < 1:
            raise ValueError("rate_limit_burst must be at least 1 (one request's token)")
        for field in fields(self):
            if field.name.startswith("rate_limit"):
                continue
            value = getattr(self, field.name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{field.name} is a probability in [0, 1], not {value!r}")


@dataclass(frozen=True)
class FaultPlan:
    """What to do to one request: no fault (``kind`` None) or one fault."""

    kind: FaultKind | None = None
    status: int = 200
    mangling: Mangling | None = None


class TokenBucket:
    """A thread-safe token bucket: ``rate`` tokens a second, holding at most ``capacity``."""

    def __init__(
        self, rate: float, capacity: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.capacity = capacity
        self._clock = clock
        self._tokens = capacity
        self._updated = clock()
        self._lock = threading.Lock()

    def acquire(self) -> float:
        """Take a token: 0.0 if one was free, else the seconds until one will be."""
        with self._lock:
            now = self._clock()
            self._tokens = min(self.capacity, self._tokens + (now - self._updated) * self.rate)
            self._updated = now
            if self._tokens >= 1.0:
                self._tokens -= 1.0
                return 0.0
            return (1.0 - self._tokens) / self.rate


class FaultInjector:
    """Draws a :class:`FaultPlan` per request from a seeded, lock-protected RNG.

    Every draw consumes the same number of random values, so the sequence of plans is
    deterministic given the seed and the order of requests.
    """

    def __init__(self, faults: Faults, seed: int = 0) -> None:
        self.faults = faults
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._bucket: TokenBucket | None = None
        if faults.rate_limit_rps is not None:
            burst = faults.rate_limit_burst or max(1.0, faults.rate_limit_rps)
            self._bucket = TokenBucket(faults.rate_limit_rps, burst)

    def rate_limit_wait(self) -> float | None:
        """None if the request may proceed, else the seconds the client should wait."""
        if self._bucket is None:
            return None
        wait = self._bucket.acquire()
        return wait if wait > 0.0 else None

    def draw(self, *, content_faults: bool = True) -> FaultPlan:
        faults = self.faults
        with self._lock:
            rolls = [self._rng.random() for _ in range(5)]
            status = self._rng.choice(SERVER_ERROR_STATUSES)
            mangling = self._rng.choice(MANGLINGS)
        if rolls[0] < faults.status_5xx:
            return FaultPlan("status_5xx", status=status)
        if rolls[1] < faults.drop_connection:
            return FaultPlan("drop_connection")
        if rolls[2] < faults.malformed_body:
            return FaultPlan("malformed_body")
        if rolls[3] < faults.truncated_body:
            return FaultPlan("truncated_body")
        if content_faults and rolls[4] < faults.malformed_content:
            return FaultPlan("malformed_content", mangling=mangling)
        return FaultPlan()


def format_retry_after(wait: float) -> tuple[str, str]:
    """``Retry-After`` (decimal seconds) and ``retry-after-ms`` values, rounded up to 1 ms."""
    millis = max(1, math.ceil(wait * 1000))
    return f"{millis / 1000:g}", str(millis)
