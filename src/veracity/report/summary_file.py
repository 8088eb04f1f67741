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

__all__ = [
    "Analysis",
    "MetricSummary",
    "Stats",
    "SummaryFile",
    "WorstEntry",
    "as_read",
    "read_summary",
    "summary_model",
]


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
    verbatim_not_supported: int | None = None
    overruled: int | None = None
    supported_on_second_look: int | None = None
    supported_by_conversation: int | None = None
    cut: int | None = None
    # question → reading path → replies (see JudgeOutcome.readings)
    reading: dict[str, dict[str, int]] | None = None
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


class ClaimCounts(_Block):
    """Claims not supported, over a metric's failing results."""

    results: int = 0
    results_with_contradicted: int = 0
    contradicted: int = 0
    not_enough_info: int = 0
    misattributed: int | None = None  # citation metrics, where any are


class Severity(_Block):
    threshold: float
    scored: int = 0
    with_score: int = 0
    failing: int = 0
    bands: dict[str, int] = {}
    rubric_overall: dict[str, int] | None = None
    claims_in_failing: ClaimCounts | None = None
    judge_errors: int = 0
    judge_errors_without_reply: int = 0
    unsupported_by_judge: int = 0


class FailingClaim(_Block):
    kind: str = "claim"
    claim: str = ""
    verdict: str = ""
    reason: str = ""
    evidence: str = ""
    citations: str | None = None  # a citation metric's: what it cites, what supports it


class FailingDimension(_Block):
    name: str
    score: float
    minimum: float
    reasoning: str = ""


class WorstEntry(_Block):
    """A low-scoring result as the analysis keeps it."""

    sample_id: str
    system: str | None = None
    question_type: str | None = None
    iteration: int = 0
    score: float | None = None
    status: str = "scored"
    failing: bool = False
    reason: str = ""
    failing_claims: list[FailingClaim] = []
    more_failing_claims: int = 0
    failing_dimensions: list[FailingDimension] = []
    grade: str | None = None
    classification: str | None = None


class GroupPattern(_Block):
    n: int = 0
    n_scored: int = 0
    mean: float | None = None
    failures: int = 0
    failure_rate: float | None = None
    ratio_to_average: float | None = None
    flagged: bool = False


class MetricPatterns(_Block):
    failure_rate: float | None = None
    by_system: dict[str, GroupPattern] = {}
    by_question_type: dict[str, GroupPattern] = {}


class Recommendation(_Block):
    message: str
    rule: str = ""
    metric: str | None = None
    scope: str | None = None
    evidence: dict[str, Any] = {}


class Analysis(_Block):
    """The low-score analysis: severity, the worst items, patterns and recommendations."""

    worst_n: int = 0
    severity: dict[str, Severity] = {}
    worst: dict[str, list[WorstEntry]] = {}
    patterns: dict[str, MetricPatterns] = {}
    recommendations: list[Recommendation] = []


class SummaryFile(_Block):
    metrics: dict[str, MetricSummary]
    results: int = 0
    bad_rows: int = 0
    usage: dict[str, Any] = {}
    cost: dict[str, Any] = {}
    analysis: Analysis | None = None


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
