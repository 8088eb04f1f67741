"""A run's results with the trace spans they evaluate: what every destination that takes
scores back onto traces (Phoenix, Langfuse) sends, and how it explains them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from veracity.report.excerpts import failing_claims
from veracity.report.run_data import RunData, RunLike, load_run
from veracity.types import ResultRecord, Sample

__all__ = ["MAX_EXPLANATION", "TracedResult", "explanation", "run_samples", "traced_results"]

MAX_EXPLANATION = 4_000


def explanation(reason: str, details: Mapping[str, Any]) -> str:
    """A result's reason with its failing claims, bounded."""
    claims, more = failing_claims(dict(details))
    lines = [reason, *(f"{c['verdict']}: {c['claim']}" for c in claims)]
    if more:
        lines.append(f"… and {more} more failing claim(s)")
    text = "\n".join(lines)
    return text if len(text) <= MAX_EXPLANATION else text[: MAX_EXPLANATION - 1] + "…"


def run_samples(run: RunData) -> dict[tuple[str, str | None], Sample]:
    """The samples of ``run``'s dataset, by (id, system); none if it cannot be read."""
    from veracity.dataset import DatasetError, read_dataset

    path = run.dataset_file()
    if path is None:
        return {}
    try:
        return {(s.id, s.system): s for s in read_dataset(path) if isinstance(s, Sample)}
    except DatasetError:
        return {}


@dataclass(frozen=True, slots=True)
class TracedResult:
    record: ResultRecord
    trace_id: str
    span_id: str
    threshold: float
    run_id: str  # the run's start: with the iteration, what makes a re-send an update


def traced_results(
    source: Path | str | RunLike | RunData, thresholds: Mapping[str, float] | None = None
) -> Iterator[TracedResult]:
    """The results of ``source`` (a run directory, the result of ``evaluate`` or a run
    read already) whose samples came from traces; the others are left out."""
    run = source if isinstance(source, RunData) else load_run(source, thresholds)
    samples = run_samples(run)
    run_id = str(run.manifest.started_at or "run")
    for record in run.records():
        sample = samples.get((record.sample_id, record.system))
        metadata = sample.metadata if sample is not None else {}
        span_id, trace_id = metadata.get("span_id"), metadata.get("trace_id")
        if isinstance(span_id, str) and span_id and isinstance(trace_id, str) and trace_id:
            yield TracedResult(record, trace_id, span_id, run.threshold(record.metric), run_id)
