"""Putting a judge's chat model behind the response cache: one way for every caller (a
run, a run's own replies, test-set generation)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, overload

from veracity.judges.base import Judge
from veracity.judges.chat.cache import (
    SHARED_CACHE_ADVICE,
    CachedChat,
    ResponseCache,
    default_cache_path,
)
from veracity.judges.llm import LLMJudge

# What to do when the disk fails a run's own replies (the shared cache says its own).
RUN_REPLIES_ADVICE = (
    "free some space or make it writable, then run the same command again to go on: "
    "every result so far is kept"
)

Scope = Literal["shared", "run"]


@overload
def with_cache(
    judge: LLMJudge, cache: bool | str | Path, scope: Scope = ..., max_bytes: int | None = ...
) -> tuple[LLMJudge, ResponseCache | None]: ...
@overload
def with_cache(
    judge: Judge, cache: bool | str | Path, scope: Scope = ..., max_bytes: int | None = ...
) -> tuple[Judge, ResponseCache | None]: ...
def with_cache(
    judge: Judge,
    cache: bool | str | Path,
    scope: Scope = "shared",
    max_bytes: int | None = None,
) -> tuple[Judge, ResponseCache | None]:
    """The judge with its chat model behind the response cache (LLM judges only), and the
    cache it opened (to close when done; ``None`` when none was opened).

    ``cache`` is ``True`` (the default cache file, ``$VERACITY_CACHE`` or the user cache
    folder), a path, or ``False`` (no cache). The shared cache is bounded by ``max_bytes``;
    a run's own replies (``scope="run"``) are not: they go when the run completes. A judge
    already behind a cache is kept as is.
    """
    if cache is False or not isinstance(judge, LLMJudge) or isinstance(judge.model, CachedChat):
        return judge, None
    shared = scope == "shared"
    replies = ResponseCache(
        default_cache_path() if cache is True else Path(cache),
        advice=SHARED_CACHE_ADVICE if shared else RUN_REPLIES_ADVICE,
        max_bytes=max_bytes if shared else None,
    )
    return judge.using(CachedChat(judge.model, replies, scope)), replies
