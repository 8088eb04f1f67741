"""``summary.json``: per metric, overall and per system, what the scores add up to."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from veracity.types import ResultRecord, Status, Usage

OVERALL = "overall"
# The by_system key of samples that name no system (JSON keys cannot be null).
NO_SYSTEM = "(no system)"


@dataclass(slots=True)
class _Group:
    scores: list[float] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
    n: int = 0

    def add(self, record: ResultRecord) -> None:
        self.n += 1
        self.statuses[record.status.value] += 1
        if record.score is not None:
            self.scores.append(record.score)

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
        }


class SummaryBuilder:
    """Folds result records into the summary, one at a time (a run streams through it)."""

    def __init__(self) -> None:
        self._groups: dict[str, dict[str, _Group]] = defaultdict(lambda: defaultdict(_Group))
        self.usage = Usage()
        self.results = 0

    def add(self, record: ResultRecord) -> None:
        self.results += 1
        self.usage += record.usage
        by_metric = self._groups[record.metric]
        by_metric[OVERALL].add(record)
        by_metric[f"system:{record.system or ''}"].add(record)

    def build(self, *, bad_rows: int) -> dict[str, Any]:
        metrics: dict[str, Any] = {}
        for metric, groups in self._groups.items():
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
        }
