"""A bound on the bytes of a reply's body, enforced as it arrives: a runaway or hostile
endpoint's reply is refused before it is read whole into memory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx2

from veracity.transport.errors import ReplyTooLargeError

# Far above any judge reply (a JSON object of claims or verdicts, with the log-probabilities
# of a few thousand tokens), far below what would strain memory.
MAX_BODY_BYTES = 32 * 1024 * 1024


def _too_large(size: int, limit: int) -> ReplyTooLargeError:
    return ReplyTooLargeError(
        f"the endpoint's reply is over {size:,} bytes, over the bound of {limit:,} a reply "
        "may take: it was not read"
    )


class _Bounded(httpx2.AsyncByteStream):
    def __init__(self, inner: Any, limit: int) -> None:
        self._inner, self._limit = inner, limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self._inner:
            seen += len(chunk)
            if seen > self._limit:
                raise _too_large(self._limit, self._limit)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


def bounded_hooks(limit: int = MAX_BODY_BYTES) -> dict[str, list[Any]]:
    """The event hooks of an SDK's HTTP client that refuse a body over ``limit`` bytes:
    at once when its ``Content-Length`` says so, else as the bytes come."""

    async def hook(response: httpx2.Response) -> None:
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > limit:
            raise _too_large(int(length), limit)
        response.stream = _Bounded(response.stream, limit)

    return {"response": [hook]}
