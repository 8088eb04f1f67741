"""``summary.json`` as a typed model: what the summary writes is what every report reads.

A summary that does not validate (damaged, hand-edited, or of an older layout) is not
read by guesswork: :func:`read_summary` gives ``None``, and the report rebuilds the
summary from the run's results, as it does when the file is missing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from veracity.store import SUMMARY
from veracity.store.reading import read_json_object

__all__ = ["MetricSummary", "Stats", "SummaryFile", "as_read", "read_summary", "summary_model"]


class _Block(BaseModel):
    # Sections a later version adds are kept, and shown as they are.
    model_config = ConfigDict(frozen=True, extra="allow")


class LabelCounts(_Block):
    counts: dict[str, int] = {}
    rates: dict[str, float] = {}


class Calibrated(_Block):
    n: int = 0
    mean: float | None = None
    ci95: tuple[float, float] | None = None
    pass_rate: float | None = None


class Stats(_Block):
    """One group's figures: overall, a system, a question type or an iteration."""

    n: int = 0
    n_scored: int = 0
    mean: float | None = None
    median: float | None = None
    min: float | None = None
    max: float | None = None
    std: float | None = None
    ci95: tuple[float, float] | None = None
    pass_rate: float | None = None
    counts_by_status: dict[str, int] = {}
    classification: LabelCounts | None = None
    grades: LabelCounts | None = None
    passed: LabelCounts | None = None
    claims: int | None = None
    evidence_not_found: int | None = None
    unbacked_support: int | None = None
    cut: int | None = None
    calibrated: Calibrated | None = None


class Threshold(_Block):
    value: float
    source: str = "given"


class MeanMax(_Block):
    mean: float | None = None
    max: float | None = None


class Variance(_Block):
    iterations: int = 0
    items_scored: int = 0
    items_compared: int = 0
    std: MeanMax = MeanMax()
    range: MeanMax = MeanMax()
    flipped_items: int = 0
    flip_rate: float | None = None


class MetricSummary(_Block):
    threshold: Threshold | None = None
    overall: Stats
    by_system: dict[str, Stats] = {}
    by_question_type: dict[str, Stats] = {}
    by_iteration: dict[str, Stats] = {}
    judge_variance: Variance | None = None


class SummaryFile(_Block):
    metrics: dict[str, MetricSummary]
    results: int = 0
    bad_rows: int = 0
    usage: dict[str, Any] = {}
    cost: dict[str, Any] = {}
    analysis: dict[str, Any] = {}


def summary_model(data: object) -> SummaryFile | None:
    """``data`` as a summary; ``None`` when it is not one."""
    try:
        return SummaryFile.model_validate(data)
    except ValidationError:
        return None


def as_read(summary: object) -> dict[str, Any]:
    """``summary`` as the reports read it: every field of its type, missing ones at their
    defaults. Raises :class:`~pydantic.ValidationError` when it is not a summary."""
    return SummaryFile.model_validate(summary).model_dump(mode="json")


def read_summary(run_dir: Path) -> dict[str, Any] | None:
    """The run's ``summary.json`` as :func:`as_read` gives it; ``None`` when it is missing
    or is not a summary."""
    found = summary_model(read_json_object(run_dir / SUMMARY))
    return None if found is None else found.model_dump(mode="json")
