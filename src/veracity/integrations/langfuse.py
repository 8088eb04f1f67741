"""Evaluation results back to Langfuse, as scores of the traces they evaluate.

Each scored result of a sample read from Langfuse (``veracity run --from langfuse``) becomes
a numeric score ``veracity.<metric>`` of its trace and observation, with the reason and the
failing claims as its comment and the pass/fail label, status and threshold in its
metadata. Every score carries an id made from the run, the result and the span, which
Langfuse upserts on: sending again (after a partial failure, or to update) replaces the
scores, never adds more. An unscored result has no number to send: it is counted, not
sent. The keys come from ``LANGFUSE_PUBLIC_KEY`` and ``LANGFUSE_SECRET_KEY``.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from veracity._scrub import scrub_secrets
from veracity.evaluation.blocking import run_blocking
from veracity.integrations.sending import SEND_TIMEOUT_S, SendError, failure, send_client
from veracity.integrations.traced import (
    TracedResult,
    explanation,
    probability_metadata,
    traced_results,
)
from veracity.report.run_data import RunLike
from veracity.traces import TraceFileError
from veracity.traces.langfuse_api import langfuse_keys
from veracity.transport.bounded import within_deadline
from veracity.transport.limits import checked_timeout

if TYPE_CHECKING:
    from langfuse.api import CreateScoreRequest

__all__ = ["LangfuseSent", "send_to_langfuse"]

BATCH = 500  # scores a request
_IDS = uuid.UUID("6f1d3c1e-5a0e-4f59-9a8e-7d1c1f0b8a11")  # veracity's namespace for score ids


@dataclass(frozen=True, slots=True)
class LangfuseSent:
    """What a send did: scores the server accepted, unscored results not sent, scores the
    server rejected (with its first messages), scores sent."""

    accepted: int
    unscored: int
    rejected: int = 0
    errors: tuple[str, ...] = ()
    sent: int = 0  # scores posted: what ``accepted`` and ``rejected`` should add up to


def score_id(traced: TracedResult) -> str:
    """The same result of the same run always gets the same id."""
    r = traced.record
    key = "\x1f".join(
        (traced.run_id, traced.trace_id, traced.span_id, r.sample_id, r.system or "", r.metric,
         str(r.iteration))
    )  # fmt: skip
    return str(uuid.uuid5(_IDS, key))


def _score(traced: TracedResult) -> CreateScoreRequest:
    from langfuse.api import CreateScoreRequest

    record = traced.record
    assert record.score is not None
    return CreateScoreRequest(
        id=score_id(traced),
        trace_id=traced.trace_id,
        observation_id=traced.span_id if traced.span_id != traced.trace_id else None,
        name=f"veracity.{record.metric}",
        value=record.score,
        data_type="NUMERIC",
        comment=explanation(record.reason, record.details),
        metadata={
            "label": "pass" if record.score >= traced.threshold else "fail",
            "threshold": traced.threshold,
            "status": record.status.value,
            "sample_id": record.sample_id,
            "iteration": record.iteration,
            **({"system": record.system} if record.system else {}),
            **probability_metadata(record.details),
        },
    )


def send_to_langfuse(
    source: Path | str | RunLike,
    base_url: str,
    *,
    thresholds: Mapping[str, float] | None = None,
    timeout_s: float = SEND_TIMEOUT_S,
) -> LangfuseSent:
    """Score, on the Langfuse at ``base_url``, the traces the results of ``source`` (a run
    directory or the result of ``evaluate``) evaluate. Results of samples that did not
    come from a trace are left out. Each request is bounded as every send is (see
    :mod:`veracity.integrations.sending`: ``timeout_s`` seconds all told); a server that
    cannot be reached, refuses the keys or breaks a bound is a :class:`SendError` (nothing
    sent before it is lost: sending again updates)."""
    timeout_s = checked_timeout(timeout_s)
    try:
        import langfuse.api  # noqa: F401 - needed before any score is made
    except ImportError as exc:
        raise SendError(
            "sending to Langfuse needs its SDK: pip install 'veracity[langfuse]'"
        ) from exc
    try:
        keys = langfuse_keys(base_url)
    except TraceFileError as exc:
        raise SendError(str(exc)) from None
    results = list(traced_results(source, thresholds))
    scores = [_score(t) for t in results if t.record.score is not None]
    took = run_blocking(lambda: _post(base_url, keys, scores, timeout_s))
    return replace(took, unscored=len(results) - len(scores))


async def _post(
    base_url: str, keys: tuple[str, str], scores: list[CreateScoreRequest], timeout_s: float
) -> LangfuseSent:
    from langfuse.api import AsyncLangfuseAPI

    if not scores:
        return LangfuseSent(0, 0)
    where, (public, secret) = f"Langfuse at {base_url}", keys
    accepted = rejected = 0
    errors: list[str] = []
    async with send_client(base_url, timeout_s) as http:
        client = AsyncLangfuseAPI(
            base_url=base_url.rstrip("/"), username=public, password=secret,
            x_langfuse_public_key=public, httpx_client=http,
        )  # fmt: skip
        for start in range(0, len(scores), BATCH):
            batch = scores[start : start + BATCH]
            try:
                reply = await within_deadline(
                    partial(client.scores.create, request=batch), timeout_s
                )
            except Exception as exc:  # httpx's errors, the SDK's, the bounds'
                raise failure(where, exc, secret, public) from None
            accepted += reply.accepted
            rejected += reply.rejected
            said = [scrub_secrets(str(e.message), secret) for e in reply.errors or []]
            errors += said[: 5 - len(errors)]
    return LangfuseSent(accepted, 0, rejected, tuple(errors), sent=len(scores))
