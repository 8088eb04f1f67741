"""A judge's chat model with what a run puts around it, built in one place: the provider's
batch API (its batches written down in the run directory) under the response cache, shared
between runs or the run's own replies."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from veracity.chat.base import ChatModel
from veracity.chat.batch_api import BatchApi, batch_api
from veracity.chat.batching import BatchingChat, BatchSettings
from veracity.chat.cache import (
    SHARED_CACHE_ADVICE,
    CachedChat,
    ResponseCache,
    default_cache_path,
)
from veracity.chat.sdk import SDKChat
from veracity.store import BATCHES

__all__ = [
    "BatchUnavailableError",
    "Scope",
    "check_batchable",
    "open_cache",
    "stack_chat",
]

Scope = Literal["shared", "run"]

# What to do when the disk fails a run's own replies (the shared cache says its own).
RUN_REPLIES_ADVICE = (
    "free some space or make it writable, then run the same command again to go on: "
    "every result so far is kept"
)


class BatchUnavailableError(ValueError):
    """``batch`` was asked for where there is no batch API to send the calls to."""


def check_batchable(model: ChatModel | None, judge_name: str, executor: str) -> None:
    """Raise :class:`BatchUnavailableError` unless ``model`` can send its calls through a
    batch API on ``executor``: checked before a run opens anything."""
    if executor != "local":
        raise BatchUnavailableError(
            f"batch runs on the local executor (the provider runs the calls), not {executor}"
        )
    _batch_api(model, judge_name)


def _batch_api(model: ChatModel | None, judge_name: str) -> tuple[SDKChat[Any], BatchApi]:
    api = batch_api(model) if isinstance(model, SDKChat) else None
    if api is None or not isinstance(model, SDKChat):
        raise BatchUnavailableError(
            f"batch needs an openai/MODEL or anthropic/MODEL judge; {judge_name} has no batch API"
        )
    return model, api


def open_cache(
    cache: bool | str | Path, scope: Scope = "shared", max_bytes: int | None = None
) -> ResponseCache | None:
    """The response cache ``cache`` names: ``True`` for the default file (``$VERACITY_CACHE``
    or the user cache folder), a path, or ``False`` for none. The shared cache is bounded by
    ``max_bytes``; a run's own replies (``scope="run"``) are not: they go when it completes."""
    if cache is False:
        return None
    shared = scope == "shared"
    return ResponseCache(
        default_cache_path() if cache is True else Path(cache),
        advice=SHARED_CACHE_ADVICE if shared else RUN_REPLIES_ADVICE,
        max_bytes=max_bytes if shared else None,
    )


def stack_chat(
    model: ChatModel,
    *,
    cache: ResponseCache | None = None,
    scope: Scope = "shared",
    batch: BatchSettings | None = None,
    run_dir: Path | None = None,
) -> ChatModel:
    """``model`` with its calls sent through the batch API (``batch``; the batches written
    down in ``run_dir``, so a killed run polls them again) and its replies kept in ``cache``.
    A model already behind a cache is kept as it is: a reply is looked up once."""
    if isinstance(model, CachedChat):
        return model
    if batch is not None:
        sdk, api = _batch_api(model, model.name)
        ledger = run_dir / BATCHES if run_dir is not None else None
        model = BatchingChat(sdk, api, ledger_path=ledger, settings=batch)
    return model if cache is None else CachedChat(model, cache, scope)
