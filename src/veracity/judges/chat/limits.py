"""The global limit on judge calls in flight."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class RequestLimiter:
    """At most ``concurrency`` calls at once, shared by every metric of a run.

    The semaphore is made per event loop, so a judge object can serve several
    ``asyncio.run`` calls (as ``evaluate`` makes) without binding to a dead loop.
    """

    def __init__(self, concurrency: int) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency}")
        self.concurrency = concurrency
        self.throttle_events = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._semaphore: asyncio.Semaphore | None = None

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._loop is not loop:
            self._loop, self._semaphore = loop, asyncio.Semaphore(self.concurrency)
        async with self._semaphore:
            yield

    def throttled(self) -> None:
        """The endpoint asked us to slow down (a 429 with ``Retry-After``)."""
        self.throttle_events += 1
