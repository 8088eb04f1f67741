"""``batch=True``: the judge's calls through its provider's batch API."""

from __future__ import annotations

from pathlib import Path

from veracity.judges import Judge, LLMJudge
from veracity.judges.chat.batch_api import batch_api
from veracity.judges.chat.batching import BatchingChat, BatchSettings
from veracity.judges.chat.sdk import SDKChat
from veracity.store import BATCHES


class BatchUnavailableError(ValueError):
    """``batch`` was asked for where there is no batch API to send the calls to."""


def with_batching(
    judge: Judge, batch: bool | BatchSettings, out: str | Path | None, executor: str
) -> Judge:
    """``judge`` with its calls going through the batch API (``batch`` true, or settings),
    its batches written down in the run directory ``out``; ``judge`` itself otherwise."""
    if batch is False:
        return judge
    if executor != "local":
        raise BatchUnavailableError(
            f"batch runs on the local executor (the provider runs the calls), not {executor}"
        )
    model = judge.model if isinstance(judge, LLMJudge) else None
    api = batch_api(model) if isinstance(model, SDKChat) else None
    if api is None or not isinstance(judge, LLMJudge) or not isinstance(model, SDKChat):
        raise BatchUnavailableError(
            f"batch needs an openai/MODEL or anthropic/MODEL judge; {judge.name} has no batch API"
        )
    settings = BatchSettings() if batch is True else batch
    ledger = Path(out) / BATCHES if out is not None else None
    return judge.using(BatchingChat(model, api, ledger_path=ledger, settings=settings))
