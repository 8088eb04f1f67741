"""Running counts the analysis keeps per group: scores and failures, claim verdicts."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from veracity.types import Attribution, Verdict

# A group is flagged when it fails this many times as often as its metric on average,
# at least FLAG_MARGIN more in absolute terms, with at least MIN_GROUP_SCORED results
# and MIN_GROUP_FAILURES failures (and its dimension has two groups or more).
FLAG_RATIO = 1.5
FLAG_MARGIN = 0.10
MIN_GROUP_SCORED = 5
MIN_GROUP_FAILURES = 3


@dataclass(slots=True)
class Tally:
    """The results of one metric in one group: how many, their sum, how many failed."""

    n: int = 0
    n_scored: int = 0
    total: float = 0.0
    failures: int = 0

    def add(self, score: float | None, failing: bool) -> None:
        self.n += 1
        if score is not None:
            self.n_scored += 1
            self.total += score
            self.failures += failing

    @property
    def mean(self) -> float | None:
        return self.total / self.n_scored if self.n_scored else None

    @property
    def failure_rate(self) -> float | None:
        return self.failures / self.n_scored if self.n_scored else None

    def flag(self, average: float | None) -> tuple[float | None, bool]:
        """This group's failure rate over the ``average`` one, and whether it is flagged."""
        rate = self.failure_rate
        if rate is None or not average:
            return None, False
        ratio = rate / average
        flagged = (
            self.n_scored >= MIN_GROUP_SCORED
            and self.failures >= MIN_GROUP_FAILURES
            and ratio >= FLAG_RATIO
            and rate - average >= FLAG_MARGIN
        )
        return ratio, flagged

    def pattern(self, average: float | None, *, flaggable: bool) -> dict[str, Any]:
        ratio, flagged = self.flag(average)
        return {
            "n": self.n,
            "n_scored": self.n_scored,
            "mean": self.mean,
            "failures": self.failures,
            "failure_rate": self.failure_rate,
            "ratio_to_average": ratio,
            "flagged": flagged and flaggable,
        }


@dataclass(slots=True)
class ClaimTally:
    """Claim verdicts of the scored results of a claim-based metric (faithfulness, and the
    citation metrics, whose supported claims may be misattributed)."""

    results: int = 0
    results_with_contradicted: int = 0
    contradicted: int = 0
    not_enough_info: int = 0
    failing_results: int = 0
    failing_with_contradicted: int = 0
    failing_contradicted: int = 0
    failing_not_enough_info: int = 0
    failing_misattributed: int = 0

    def add(self, verdicts: Counter[str], failing: bool) -> None:
        contradicted = verdicts[Verdict.CONTRADICTED.value]
        # A citation metric's supported claim whose support is in no passage is as unsupported.
        unsupported = (
            verdicts[Verdict.NOT_ENOUGH_INFO.value] + verdicts[Attribution.UNSUPPORTED.value]
        )
        self.results += 1
        self.results_with_contradicted += contradicted > 0
        self.contradicted += contradicted
        self.not_enough_info += unsupported
        if failing:
            self.failing_results += 1
            self.failing_with_contradicted += contradicted > 0
            self.failing_contradicted += contradicted
            self.failing_not_enough_info += unsupported
            self.failing_misattributed += verdicts[Attribution.MISATTRIBUTED.value]

    def failing_counts(self) -> dict[str, int]:
        """Claims that are not supported (or misattributed, where any are), counted over
        the failing results."""
        counts = {
            "results": self.failing_results,
            "results_with_contradicted": self.failing_with_contradicted,
            "contradicted": self.failing_contradicted,
            "not_enough_info": self.failing_not_enough_info,
        }
        if self.failing_misattributed:
            counts[Attribution.MISATTRIBUTED.value] = self.failing_misattributed
        return counts
