"""A run's results with the trace spans they evaluate: what every destination that takes
scores back onto traces (Phoenix, Langfuse) sends, and how it explains them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from veracity.report.excerpts import failing_claims
from veracity.report.run_data import RunData, RunLike, load_run
from veracity.types import ResultRecord, Sample

__all__ = [
    "MAX_EXPLANATION",
    "TracedResult",
    "explanation",
    "option_probabilities",
    "probability_metadata",
    "run_samples",
    "traced_results",
]

MAX_EXPLANATION = 4_000
# Claims, chunks or levels whose probabilities go with one score: enough to see why, without
# making a score's metadata as large as its details.
MAX_PROBABILITY_ITEMS = 50
MAX_CLAIM_CHARS = 200


def explanation(reason: str, details: Mapping[str, Any]) -> str:
    """A result's reason with its failing claims, bounded."""
    claims, more = failing_claims(dict(details))
    lines = [reason, *(f"{c['verdict']}: {c['claim']}" for c in claims)]
    if more:
        lines.append(f"… and {more} more failing claim(s)")
    text = "\n".join(lines)
    return text if len(text) <= MAX_EXPLANATION else text[: MAX_EXPLANATION - 1] + "…"


def option_probabilities(details: Mapping[str, Any]) -> dict[str, Any]:
    """The probability the judge gave each option, where it gave them (a decision model, or
    an LLM judge's log-probabilities): per claim (supported / contradicted / not enough
    information, else P(supported)), per chunk (P(relevant)), the answer's class, and each
    level of a scale. Empty when the judge gave none; bounded in size."""
    found: dict[str, Any] = {}
    claims = [
        {"claim": _bounded_text(c.get("claim")), "probabilities": p}
        for c in _items(details.get("claims"))
        if (p := _claim_probabilities(c)) is not None
    ]
    chunks = [
        {"index": c.get("index"), "p_relevant": c["p_relevant"]}
        for c in _items(details.get("chunks"))
        if _is_probability(c.get("p_relevant"))
    ]
    scales = {
        str(name): probabilities
        for name, item in _named_scales(details)
        if (probabilities := _probability_map(item.get("probabilities"))) is not None
    }
    for key, items in (("claims", claims), ("chunks", chunks)):
        if items:
            found[key] = items[:MAX_PROBABILITY_ITEMS]
    if (answer := _probability_map(details.get("probabilities"))) is not None:
        found["answer"] = answer
    if scales:
        found["levels"] = dict(list(scales.items())[:MAX_PROBABILITY_ITEMS])
    return found


def probability_metadata(details: Mapping[str, Any]) -> dict[str, Any]:
    """``{"probabilities": …}`` for a score's metadata where the judge gave any, else ``{}``."""
    found = option_probabilities(details)
    return {"probabilities": found} if found else {}


def _items(value: object) -> list[Mapping[str, Any]]:
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def _named_scales(details: Mapping[str, Any]) -> Iterator[tuple[object, Mapping[str, Any]]]:
    """A rubric's dimensions and factual accuracy's criteria, by name."""
    for dimension in _items(details.get("dimensions")):
        yield dimension.get("name"), dimension
    criteria = details.get("criteria")
    if isinstance(criteria, Mapping):
        yield from ((n, c) for n, c in criteria.items() if isinstance(c, Mapping))


def _is_probability(value: object) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1


def _probability_map(value: object) -> dict[str, float] | None:
    if not isinstance(value, Mapping) or not value:
        return None
    if not all(_is_probability(p) for p in value.values()):
        return None
    return {str(k): float(p) for k, p in list(value.items())[:MAX_PROBABILITY_ITEMS]}


def _claim_probabilities(claim: Mapping[str, Any]) -> dict[str, float] | None:
    found = _probability_map(claim.get("probabilities"))
    if found is None and _is_probability(p := claim.get("p_supported")):
        found = {"supported": float(p)}
    return found


def _bounded_text(value: object) -> str:
    text = value if isinstance(value, str) else ""
    return text if len(text) <= MAX_CLAIM_CHARS else text[: MAX_CLAIM_CHARS - 1] + "…"


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
