"""``summary.json``: per metric — overall, per system, per question type and per
iteration — what the scores add up to, the judge variance, the cost, and the analysis."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from veracity.report.analysis import WORST_N, AnalysisBuilder
from veracity.report.groups import KNOWN_LABELS, LABELS, Group, Spread
from veracity.report.keys import DEFAULT_THRESHOLD, NO_SYSTEM, NO_TYPE, OVERALL
from veracity.report.summary_file import SummaryFile
from veracity.types import ResultRecord, Usage

__all__ = [
    "DEFAULT_THRESHOLD",
    "KNOWN_LABELS",
    "LABELS",
    "NO_SYSTEM",
    "NO_TYPE",
    "OVERALL",
    "SummaryBuilder",
    "summarize",
]

# The group sections of a metric, in the order they appear.
SECTIONS = ("by_system", "by_question_type", "by_iteration")


@dataclass(slots=True)
class _Spent:
    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0
    unpriced_calls: int = 0

    def as_dict(self) -> dict[str, Any]:
        # A cost with unpriced calls in it would be too low: say unknown instead.
        cost = None if self.unpriced_calls else self.cost_usd
        return {**self.usage.model_dump(), "cost_usd": cost}


def _checked(thresholds: Mapping[str, float] | None) -> dict[str, float]:
    checked = {}
    for metric, value in (thresholds or {}).items():
        number = float(value)
        if not math.isfinite(number) or not 0.0 <= number <= 1.0:
            raise ValueError(f"threshold of {metric} must be in [0, 1], not {value!r}")
        checked[metric] = number
    return checked


class SummaryBuilder:
    """Folds result records into the summary, one at a time (a run streams through it).

    ``thresholds`` (metric → value in [0, 1]) set where a score passes, for pass rates,
    flip rates and the analysis; a metric without one uses ``DEFAULT_THRESHOLD``.
    """

    def __init__(
        self,
        metric_order: Sequence[str] = (),
        thresholds: Mapping[str, float] | None = None,
        *,
        worst_n: int = WORST_N,
    ) -> None:
        # Metrics appear in the order the run named them, not the order results arrived.
        self._order = {name: i for i, name in enumerate(metric_order)}
        self._thresholds = _checked(thresholds)
        # metric → (section, group key) → group; the section "overall" has one group.
        self._groups: dict[str, dict[tuple[str, str], Group]] = defaultdict(
            lambda: defaultdict(Group)
        )
        self._spread: dict[str, Spread] = defaultdict(Spread)
        # (sample_id, system) → item number: an item's iterations share one number.
        self._items: dict[tuple[str, str | None], int] = {}
        self._analysis = AnalysisBuilder(self._thresholds, worst_n)
        self.usage = Usage()
        self.results = 0
        self._iterations: dict[int, _Spent] = defaultdict(_Spent)

    def threshold(self, metric: str) -> float:
        return self._thresholds.get(metric, DEFAULT_THRESHOLD)

    def add(self, record: ResultRecord) -> None:
        self.results += 1
        self.usage += record.usage
        spent = self._iterations[record.iteration]
        spent.usage += record.usage
        if record.cost_usd is not None:
            spent.cost_usd += record.cost_usd
        elif record.usage.calls:
            spent.unpriced_calls += 1
        item = self._items.setdefault((record.sample_id, record.system), len(self._items))
        groups = self._groups[record.metric]
        for key in (
            (OVERALL, OVERALL),
            ("by_system", record.system or NO_SYSTEM),
            ("by_question_type", record.question_type or NO_TYPE),
            ("by_iteration", str(record.iteration)),
        ):
            groups[key].add(record, item)
        self._spread[record.metric].add(item, record)
        self._analysis.add(record)

    def build(self, *, bad_rows: int) -> dict[str, Any]:
        metrics: dict[str, Any] = {}
        ordered = sorted(self._groups.items(), key=lambda item: self._order.get(item[0], 1 << 30))
        for metric, groups in ordered:
            threshold = self.threshold(metric)
            entry: dict[str, Any] = {
                "threshold": {
                    "value": threshold,
                    "source": "given" if metric in self._thresholds else "default",
                },
                OVERALL: groups[OVERALL, OVERALL].stats(threshold),
            }
            for section in SECTIONS:
                keys = sorted(key for sec, key in groups if sec == section)
                if section == "by_iteration":
                    keys.sort(key=int)
                if section == "by_iteration" and len(keys) == 1:
                    # One iteration holds every result: its statistics are the overall ones.
                    entry[section] = {keys[0]: dict(entry[OVERALL])}
                    continue
                entry[section] = {key: groups[section, key].stats(threshold) for key in keys}
            entry["judge_variance"] = self._spread[metric].stats(threshold)
            metrics[metric] = entry
        summary = {
            "metrics": metrics,
            "results": self.results,
            "bad_rows": bad_rows,
            "usage": self.usage.model_dump(),
            "cost": self._cost(),
            "analysis": self._analysis.build(metrics),
        }
        SummaryFile.model_validate(summary)  # what is written is what the reports read
        return summary

    def _cost(self) -> dict[str, Any]:
        per_iteration = {str(i): spent.as_dict() for i, spent in sorted(self._iterations.items())}
        costs = [entry["cost_usd"] for entry in per_iteration.values()]
        total = None if any(c is None for c in costs) else sum(c for c in costs if c is not None)
        return {"currency": "USD", "total_usd": total, "per_iteration": per_iteration}


def summarize(
    records: Iterable[ResultRecord],
    metric_order: Sequence[str] = (),
    thresholds: Mapping[str, float] | None = None,
    *,
    bad_rows: int = 0,
) -> dict[str, Any]:
    """The summary of ``records`` (any iterable of result records), in one pass."""
    builder = SummaryBuilder(metric_order, thresholds)
    for record in records:
        builder.add(record)
    return builder.build(bad_rows=bad_rows)
