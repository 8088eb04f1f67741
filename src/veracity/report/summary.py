"""``summary.json``: per metric, overall and per system, what the scores add up to."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from veracity.types import AnswerClass, ResultRecord, Status, Usage

OVERALL = "overall"
# The by_system key of samples that name no system (JSON keys cannot be null).
NO_SYSTEM = "(no system)"


# Labels some metrics put in their details, counted in the summary (with rates over the
# results that have one): correct / wrong / dont_know, the A–E grade, rubric pass or fail.
LABELS = {"classification": "classification", "grade": "grades", "passed": "passed"}
# Every label listed even at zero, so a reader never wonders whether one is missing.
KNOWN_LABELS = {
    "classification": [c.value for c in AnswerClass],
    "grades": ["A", "B", "C", "D", "E"],
    "passed": ["true", "false"],
}


@dataclass(slots=True)
class _Group:
    scores: list[float] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
    labels: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    n: int = 0

    def add(self, record: ResultRecord) -> None:
        self.n += 1
        self.statuses[record.status.value] += 1
        if record.score is not None:
            self.scores.append(record.score)
        for key, summary_key in LABELS.items():
            if key in record.details:
                value = record.details[key]
                label = str(value).lower() if isinstance(value, bool) else str(value)
                self.labels[summary_key][label] += 1

    def stats(self) -> dict[str, Any]:
        scores = self.scores
        return {
            "n": self.n,
            "n_scored": len(scores),
            "mean": statistics.fmean(scores) if scores else None,
            "median": statistics.median(scores) if scores else None,
            "min": min(scores) if scores else None,
            "max": max(scores) if scores else None,
            "std": statistics.stdev(scores) if len(scores) > 1 else None,
            "counts_by_status": {s.value: self.statuses[s.value] for s in Status},
            **{
                key: {
                    "counts": (full := {k: counts[k] for k in KNOWN_LABELS[key]} | counts),
                    "rates": {k: v / sum(counts.values()) for k, v in full.items()},
                }
                for key, counts in self.labels.items()
            },
        }


@dataclass(slots=True)
class _Spent:
    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0
    unpriced_calls: int = 0

    def as_dict(self) -> dict[str, Any]:
        # A cost with unpriced calls in it would be too low: say unknown instead.
        cost = None if self.unpriced_calls else self.cost_usd
        return {**self.usage.model_dump(), "cost_usd": cost}


class SummaryBuilder:
    """Folds result records into the summary, one at a time (a run streams through it)."""

    def __init__(self, metric_order: Sequence[str] = ()) -> None:
        # Metrics appear in the order the run named them, not the order results arrived.
        self._order = {name: i for i, name in enumerate(metric_order)}
        self._groups: dict[str, dict[str, _Group]] = defaultdict(lambda: defaultdict(_Group))
        self.usage = Usage()
        self.results = 0
        self._iterations: dict[int, _Spent] = defaultdict(_Spent)

    def add(self, record: ResultRecord) -> None:
        self.results += 1
        self.usage += record.usage
        spent = self._iterations[record.iteration]
        spent.usage += record.usage
        if record.cost_usd is not None:
            spent.cost_usd += record.cost_usd
        elif record.usage.calls:
            spent.unpriced_calls += 1
        by_metric = self._groups[record.metric]
        by_metric[OVERALL].add(record)
        by_metric[f"system:{record.system or ''}"].add(record)

    def build(self, *, bad_rows: int) -> dict[str, Any]:
        metrics: dict[str, Any] = {}
        ordered = sorted(self._groups.items(), key=lambda item: self._order.get(item[0], 1 << 30))
        for metric, groups in ordered:
            metrics[metric] = {
                OVERALL: groups[OVERALL].stats(),
                "by_system": {
                    key.removeprefix("system:") or NO_SYSTEM: group.stats()
                    for key, group in sorted(groups.items())
                    if key.startswith("system:")
                },
            }
        return {
            "metrics": metrics,
            "results": self.results,
            "bad_rows": bad_rows,
            "usage": self.usage.model_dump(),
            "cost": self._cost(),
        }

    def _cost(self) -> dict[str, Any]:
        per_iteration = {str(i): spent.as_dict() for i, spent in sorted(self._iterations.items())}
        costs = [entry["cost_usd"] for entry in per_iteration.values()]
        total = None if any(c is None for c in costs) else sum(c for c in costs if c is not None)
        return {"currency": "USD", "total_usd": total, "per_iteration": per_iteration}
