"""Bounds on an HTTP exchange with a service, enforced as it happens: a reply's body is
refused past a size before it is read whole into memory, a call is cut at its deadline
however slowly its reply trickles in, and a redirect to another host is not followed.

The hooks serve the ``httpx`` clients of every SDK veracity drives (``httpx`` itself or
its successor ``httpx2``, whichever the SDK uses).
"""

from __future__ import annotations

import asyncio
import functools
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

from veracity.transport.errors import CrossHostRedirectError, ReplyTooLargeError
from veracity.transport.urls import public_url

R = TypeVar("R")

# Far above any judge reply (a JSON object of claims or verdicts, with the log-probabilities
# of a few thousand tokens), far below what would strain memory.
MAX_BODY_BYTES = 32 * 1024 * 1024


def _too_large(size: int, limit: int) -> ReplyTooLargeError:
    return ReplyTooLargeError(
        f"the endpoint's reply is over {size:,} bytes, over the bound of {limit:,} a reply "
        "may take: it was not read"
    )


class _Bounded:
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


@functools.cache
def _bounded_stream(base: type) -> type:
    # Each library checks a body's stream against its own AsyncByteStream class.
    return type("BoundedStream", (_Bounded, base), {})


def _library(message: Any) -> Any:
    """The httpx-like library a request or response is of."""
    return sys.modules[type(message).__module__.partition(".")[0]]


def bounded_hooks(
    limit: int = MAX_BODY_BYTES, *, origin: str | None = None
) -> dict[str, list[Any]]:
    """The event hooks of an SDK's async HTTP client that refuse a body over ``limit``
    bytes (at once when its ``Content-Length`` says so, else as the bytes come) and, given
    the ``origin`` URL the client is for, a request to any other host (a redirect: it would
    carry the body, scores say, where the user did not send them) or over plain HTTP from
    HTTPS."""

    async def on_response(response: Any) -> None:
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > limit:
            raise _too_large(int(length), limit)
        response.stream = _bounded_stream(_library(response).AsyncByteStream)(
            response.stream, limit
        )

    hooks: dict[str, list[Any]] = {"response": [on_response]}
    if origin is not None:
        allowed = urlsplit(origin)

        async def on_request(request: Any) -> None:
            url = request.url
            downgraded = allowed.scheme == "https" and url.scheme != "https"
            if url.host != (allowed.hostname or "") or downgraded:
                raise CrossHostRedirectError(
                    f"redirected to {public_url(str(url))}, away from {public_url(origin)}: "
                    "not followed (it would take the request there)"
                )

        hooks["request"] = [on_request]
    return hooks


async def within_deadline(attempt: Callable[[], Awaitable[R]], timeout_s: float | None) -> R:
    """``attempt()`` within ``timeout_s`` seconds all told, a reply trickling in byte by
    byte included (an HTTP client's timeouts bound each read, not the whole)."""
    bound = asyncio.timeout(timeout_s)
    try:
        async with bound:
            return await attempt()
    except TimeoutError:
        if not bound.expired():
            raise
        raise TimeoutError(f"no complete reply within {timeout_s:g} s") from None
