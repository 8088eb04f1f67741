"""Factual accuracy: G-Eval criteria against the reference, weighted by veracity."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import ClassVar

from veracity.metrics.base import (
    Need,
    SampleWork,
    finished,
    has_reference,
    judge_error,
    missing_reference,
)
from veracity.types import MetricResult, Status

DEFAULT_CRITERIA_WEIGHTS: Mapping[str, float] = MappingProxyType(
    {"correctness": 0.5, "completeness": 0.3, "consistency": 0.2}
)
GRADES = ((80.0, "A"), (60.0, "B"), (40.0, "C"), (20.0, "D"))


def grade(score_100: float) -> str:
    """A (≥ 80), B (≥ 60), C (≥ 40), D (≥ 20), else E."""
    return next((letter for floor, letter in GRADES if score_100 >= floor), "E")


@dataclass(frozen=True, slots=True)
class FactualAccuracy:
    """One call scores correctness, completeness and consistency (0–100, with
    reasoning); veracity computes the weighted score itself (never the judge's
    arithmetic) and grades it A–E."""

    weights: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_CRITERIA_WEIGHTS))
    name: str = "factual_accuracy"
    reads_as_probability: ClassVar[bool] = False
    measures_correctness: ClassVar[bool] = True
    needs: frozenset[Need] = frozenset()

    def __post_init__(self) -> None:
        if set(self.weights) != set(DEFAULT_CRITERIA_WEIGHTS) or sum(self.weights.values()) <= 0:
            raise ValueError(
                f"factual_accuracy weights must name exactly {sorted(DEFAULT_CRITERIA_WEIGHTS)}"
            )

    async def score(self, work: SampleWork) -> MetricResult:
        started = time.perf_counter()
        sample = work.sample
        if not has_reference(sample):
            return missing_reference(self.name, started)
        outcome = await work.judge.grade_factual_accuracy(
            sample.question, sample.answer, sample.reference or "", iteration=work.iteration
        )
        if outcome.value is None:
            return judge_error(self.name, "factual grading", outcome, outcome.usage, started)
        criteria = outcome.value.model_dump()
        total = sum(self.weights.values())
        # A criterion's probability-weighted score where the judge gave one, else as written.
        values = {
            n: c["score"] if c.get("expected") is None else c["expected"]
            for n, c in criteria.items()
        }
        weighted = sum(self.weights[n] * values[n] for n in self.weights) / total
        letter = grade(weighted)
        return finished(
            self.name,
            weighted / 100,
            Status.SCORED,
            f"weighted criteria score {weighted:.1f}/100, grade {letter}",
            started,
            details={
                "criteria": criteria,
                "weights": dict(self.weights),
                "weighted_score_100": weighted,
                "grade": letter,
                **({"notes": list(outcome.notes)} if outcome.notes else {}),
            },
            usage=outcome.usage,
            judged=(outcome,),
        )
