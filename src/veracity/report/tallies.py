"""Running counts the analysis keeps per group: scores and failures, claim verdicts."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
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


# What a claim tally counts, in the order the analysis shows it; misattributed claims
# are shown only where there are any.
CLAIM_COUNTS = ("results", "results_with_contradicted", "contradicted", "not_enough_info")
MISATTRIBUTED = Attribution.MISATTRIBUTED.value


@dataclass(slots=True)
class ClaimTally:
    """Claim verdicts of the scored results of a claim-based metric (faithfulness, and the
    citation metrics, whose supported claims may be misattributed): over all of them, and
    over the failing ones."""

    all: Counter[str] = field(default_factory=Counter)
    failing: Counter[str] = field(default_factory=Counter)

    def add(self, verdicts: Counter[str], failing: bool) -> None:
        contradicted = verdicts[Verdict.CONTRADICTED.value]
        counts = {
            "results": 1,
            "results_with_contradicted": int(contradicted > 0),
            "contradicted": contradicted,
            # A citation metric's supported claim whose support is in no passage is as
            # unsupported.
            "not_enough_info": verdicts[Verdict.NOT_ENOUGH_INFO.value]
            + verdicts[Attribution.UNSUPPORTED.value],
            MISATTRIBUTED: verdicts[MISATTRIBUTED],
        }
        self.all.update(counts)
        if failing:
            self.failing.update(counts)

    def failing_counts(self) -> dict[str, int]:
        """Claims that are not supported (or misattributed, where any are), counted over
        the failing results."""
        shown = (*CLAIM_COUNTS, MISATTRIBUTED) if self.failing[MISATTRIBUTED] else CLAIM_COUNTS
        return {key: self.failing[key] for key in shown}
