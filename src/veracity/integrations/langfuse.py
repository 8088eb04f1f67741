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

import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from veracity._scrub import scrub_secrets
from veracity.integrations.traced import TracedResult, explanation, traced_results
from veracity.report.run_data import RunLike
from veracity.traces.langfuse_api import failure, langfuse_client

if TYPE_CHECKING:
    import httpx
    from langfuse.api import CreateScoreRequest

__all__ = ["LangfuseSent", "send_to_langfuse"]

BATCH = 500  # scores a request
_IDS = uuid.UUID("6f1d3c1e-5a0e-4f59-9a8e-7d1c1f0b8a11")  # veracity's namespace for score ids


@dataclass(frozen=True, slots=True)
class LangfuseSent:
    """What a send did: scores accepted, unscored results not sent, scores the server
    rejected (with its first messages)."""

    accepted: int
    unscored: int
    rejected: int = 0
    errors: tuple[str, ...] = ()


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
        },
    )


def send_to_langfuse(
    source: Path | str | RunLike,
    base_url: str,
    *,
    thresholds: Mapping[str, float] | None = None,
    http: httpx.Client | None = None,
) -> LangfuseSent:
    """Score, on the Langfuse at ``base_url``, the traces the results of ``source`` (a run
    directory or the result of ``evaluate``) evaluate. Results of samples that did not
    come from a trace are left out; a server that cannot be reached or refuses the keys is
    a :class:`~veracity.traces.TraceFileError` (nothing sent before it is lost: sending
    again updates)."""
    client = langfuse_client(base_url, http)
    secret = os.environ.get("LANGFUSE_SECRET_KEY")
    results = list(traced_results(source, thresholds))
    scores = [_score(t) for t in results if t.record.score is not None]
    accepted = rejected = 0
    errors: list[str] = []
    for start in range(0, len(scores), BATCH):
        batch = scores[start : start + BATCH]
        try:
            reply = client.scores.create(request=batch)
        except Exception as exc:  # httpx's errors, the SDK's ApiError and its parse errors
            raise failure(base_url, exc) from None
        counted = getattr(reply, "accepted", None)
        accepted += counted if isinstance(counted, int) else len(batch)
        rejected += getattr(reply, "rejected", 0) or 0
        said = [scrub_secrets(str(e.message), secret) for e in getattr(reply, "errors", None) or []]
        errors += said[: 5 - len(errors)]
    return LangfuseSent(accepted, len(results) - len(scores), rejected, tuple(errors))
