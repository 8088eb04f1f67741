"""What a test-set generation did: counts by type and by drop reason, calls and tokens."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from veracity.types import Sample, Usage

#: Why generated items are dropped, in the order the summary lists them.
DROP_REASONS = ("malformed", "duplicate", "unsupported", "no_claims", "judge_error", "surplus")
#: How many problem messages a report keeps to show (all are counted).
KEPT_PROBLEMS = 100


@dataclass
class TypeCount:
    wanted: int = 0
    generated: int = 0
    kept: int = 0


@dataclass
class GenerateReport:
    """What a generation did. ``generated`` counts every item the model wrote; each is
    either kept or dropped for one reason, so ``kept + sum(dropped) == generated``."""

    count: int
    seed: int
    documents: int = 0
    chunks: int = 0
    calls: int = 0
    failed_calls: int = 0
    rounds: int = 0
    generated: int = 0
    kept: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    by_type: dict[str, TypeCount] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def problem(self, message: str) -> None:
        if len(self.problems) < KEPT_PROBLEMS:
            self.problems.append(message)


@dataclass
class GenerateResult:
    samples: list[Sample]
    report: GenerateReport
