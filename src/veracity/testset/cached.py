"""Putting a judge's chat model behind the response cache, like every other judge call."""

from __future__ import annotations

from pathlib import Path

from veracity.judges import LLMJudge
from veracity.judges.chat.cache import (
    CachedChat,
    ResponseCache,
    cache_max_bytes,
    default_cache_path,
)


def with_cache(
    judge: LLMJudge, cache: bool | str | Path, max_size: str | int | None = None
) -> tuple[LLMJudge, ResponseCache | None]:
    """The judge with its chat model behind the response cache, and the cache it opened
    (to close when done; ``None`` when none was opened).

    ``cache`` is ``True`` (the default cache file, ``$VERACITY_CACHE`` or the user cache
    folder), a path, or ``False`` (no cache); ``max_size`` bounds it (see
    :func:`~veracity.judges.chat.cache.cache_max_bytes`). A judge already behind a cache
    is kept as is.
    """
    if cache is False or isinstance(judge.model, CachedChat):
        return judge, None
    path = default_cache_path() if cache is True else Path(cache)
    store = ResponseCache(path, max_bytes=cache_max_bytes(max_size))
    return judge.using(CachedChat(judge.model, store)), store
