"""The low-score analysis: how bad the failures are, the worst items, and where they are.

Streams like the summary: per metric it keeps counters, a heap of the ``worst_n`` lowest
scores (with their failing claims), and per system / question type a few sums — memory
independent of the number of results. A result *fails* when it is scored below its
metric's threshold.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from veracity.report.excerpts import claim_outcome, worst_entry
from veracity.report.keys import DEFAULT_THRESHOLD, NO_SYSTEM, NO_TYPE, OVERALL
from veracity.report.recommendations import Evidence, recommend
from veracity.report.tallies import ClaimTally, Tally
from veracity.types import ResultRecord, Status

WORST_N = 10
# Severity bands of a 0–1 score: (upper bound, exclusive; name).
BANDS = ((0.25, "[0, 0.25)"), (0.5, "[0.25, 0.5)"), (0.75, "[0.5, 0.75)"), (math.inf, "[0.75, 1]"))
DIMENSIONS = {"system": "by_system", "question_type": "by_question_type"}


@dataclass(slots=True)
class _Severity:
    bands: Counter[str] = field(default_factory=Counter)
    rubric_overall: Counter[str] = field(default_factory=Counter)
    claims: ClaimTally | None = None
    statuses: Counter[str] = field(default_factory=Counter)
    # Judge errors where the judge never replied (timeouts, 5xx, dropped connections), as
    # opposed to replies that could not be read.
    unanswered: int = 0

    def as_dict(self, tally: Tally, threshold: float) -> dict[str, Any]:
        out: dict[str, Any] = {
            "threshold": threshold,
            # "scored" as the summary counts it (judged); failures are counted over every
            # result with a score, those scored by rule (no claims, no contexts) included.
            "scored": self.statuses[Status.SCORED.value],
            "with_score": tally.n_scored,
            "failing": tally.failures,
            "bands": {name: self.bands[name] for _, name in BANDS},
        }
        if self.rubric_overall:
            out["rubric_overall"] = {str(k): self.rubric_overall[str(k)] for k in range(1, 6)}
        if self.claims is not None:
            out["claims_in_failing"] = self.claims.failing_counts()
        out["judge_errors"] = self.statuses[Status.JUDGE_ERROR.value]
        out["judge_errors_without_reply"] = self.unanswered
        out["unsupported_by_judge"] = self.statuses[Status.UNSUPPORTED_BY_JUDGE.value]
        return out


_Worst = tuple[float, int, dict[str, Any]]


class AnalysisBuilder:
    """Folds result records into ``summary["analysis"]``."""

    def __init__(
        self, thresholds: Mapping[str, float] | None = None, worst_n: int = WORST_N
    ) -> None:
        self._thresholds = dict(thresholds or {})
        self._worst_n = worst_n
        self._seq = 0
        self._severity: dict[str, _Severity] = defaultdict(_Severity)
        # (metric, "overall" | "system" | "question_type", group) → counts and sums.
        self._tallies: dict[tuple[str, str, str], Tally] = defaultdict(Tally)
        # (metric, system or OVERALL) → claim verdicts, for metrics whose details list claims.
        self._claims: dict[tuple[str, str], ClaimTally] = defaultdict(ClaimTally)
        self._worst: dict[str, list[_Worst]] = defaultdict(list)

    def threshold(self, metric: str) -> float:
        return self._thresholds.get(metric, DEFAULT_THRESHOLD)

    def add(self, record: ResultRecord) -> None:
        self._seq += 1
        metric, score = record.metric, record.score
        failing = score is not None and score < self.threshold(metric)
        severity = self._severity[metric]
        severity.statuses[record.status.value] += 1
        if record.status is Status.JUDGE_ERROR and not record.details.get("raw_replies"):
            severity.unanswered += 1
        system = record.system or NO_SYSTEM
        self._tallies[metric, "overall", OVERALL].add(score, failing)
        self._tallies[metric, "system", system].add(score, failing)
        self._tallies[metric, "question_type", record.question_type or NO_TYPE].add(score, failing)
        if score is None:
            return
        severity.bands[next(name for bound, name in BANDS if score < bound)] += 1
        overall = record.details.get("overall")
        if "dimensions" in record.details and isinstance(overall, int | float):
            severity.rubric_overall[str(min(5, max(1, math.floor(overall))))] += 1
        claims = record.details.get("claims")
        if isinstance(claims, list):
            verdicts = Counter(claim_outcome(c) for c in claims if isinstance(c, dict))
            if severity.claims is None:
                severity.claims = ClaimTally()
            severity.claims.add(verdicts, failing)
            for scope in {OVERALL, system}:
                self._claims[metric, scope].add(verdicts, failing)
        self._keep_if_worst(record, score, failing)

    def _keep_if_worst(self, record: ResultRecord, score: float, failing: bool) -> None:
        # A max-heap (negated keys) of the lowest scores; of equal scores the earlier stays.
        heap = self._worst[record.metric]
        if self._worst_n <= 0 or (len(heap) >= self._worst_n and -heap[0][0] <= score):
            return
        entry = (-score, -self._seq, worst_entry(record, failing))
        if len(heap) < self._worst_n:
            heapq.heappush(heap, entry)
        else:
            heapq.heapreplace(heap, entry)

    def build(self, metrics: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The analysis. ``metrics`` (the summary's) gives the metric order and the judge
        variance some rules read."""
        order = {name: i for i, name in enumerate(metrics or {})}
        names = sorted(self._severity, key=lambda m: (order.get(m, len(order)), m))
        patterns = {metric: self._patterns(metric) for metric in names}
        evidence = Evidence(
            thresholds={m: self.threshold(m) for m in names},
            tallies=dict(self._tallies),
            claims=dict(self._claims),
            statuses={m: dict(self._severity[m].statuses) for m in names},
            unanswered={m: self._severity[m].unanswered for m in names},
            patterns=patterns,
            metrics=metrics or {},
        )
        return {
            "worst_n": self._worst_n,
            "severity": {
                m: self._severity[m].as_dict(
                    self._tallies[m, "overall", OVERALL], self.threshold(m)
                )
                for m in names
            },
            "worst": {
                m: [entry for *_, entry in sorted(self._worst[m], key=lambda w: (-w[0], -w[1]))]
                for m in names
            },
            "patterns": patterns,
            "recommendations": recommend(evidence),
        }

    def _patterns(self, metric: str) -> dict[str, Any]:
        average = self._tallies[metric, "overall", OVERALL].failure_rate
        out: dict[str, Any] = {"failure_rate": average}
        for dimension, key in DIMENSIONS.items():
            groups = sorted(
                ((group, tally) for (m, dim, group), tally in self._tallies.items()
                 if m == metric and dim == dimension),
                key=lambda pair: pair[0],
            )  # fmt: skip
            out[key] = {
                group: tally.pattern(average, flaggable=len(groups) > 1) for group, tally in groups
            }
        return out
