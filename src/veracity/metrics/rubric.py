"""Rubric scores: independent 1–5 axes in one call, each with its reasoning."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import ClassVar

from veracity.metrics.base import Need, SampleWork, finished, judge_error
from veracity.prompts import DEFAULT_RUBRIC
from veracity.types import MetricResult, Rubric, Status


@dataclass(frozen=True, slots=True)
class RubricMetric:
    """Scores every dimension of ``rubric`` 1–5 in one call. Pass: every dimension at or
    above its minimum (default 4). Overall: the mean of the dimensions on the 1–5 scale,
    each probability-weighted (G-Eval) where the judge's token log-probabilities give it;
    score = (overall − 1) / 4. The default rubric has two axes, faithfulness to the
    contexts and completeness of the reasoning; users define their own in the config."""

    rubric: Rubric = field(default=DEFAULT_RUBRIC)
    needs: frozenset[Need] = frozenset()
    reads_as_probability: ClassVar[bool] = False
    measures_correctness: ClassVar[bool] = False

    @property
    def name(self) -> str:
        return "rubric" if self.rubric == DEFAULT_RUBRIC else f"rubric:{self.rubric.name}"

    async def score(self, work: SampleWork) -> MetricResult:
        started = time.perf_counter()
        sample = work.sample
        outcome = await work.judge.score_rubric(
            self.rubric, sample.question, sample.answer, sample.contexts, iteration=work.iteration
        )
        if outcome.value is None:
            return judge_error(self.name, "rubric scoring", outcome, outcome.usage, started)
        scores = outcome.value
        # The probability-weighted scores where the judge gave them; pass or fail as written.
        overall = sum(s.score if s.expected is None else s.expected for s in scores) / len(scores)
        failing = [s.name for s in scores if s.score < self.rubric.minimum(s.name)]
        passed = not failing
        axes = ", ".join(f"{s.name} {s.score}" for s in scores)
        verdict = "pass" if passed else f"fail ({', '.join(failing)} below the minimum)"
        return finished(
            self.name,
            (overall - 1) / 4,
            Status.SCORED,
            f"{axes}; overall {overall:.2f}/5; {verdict}",
            started,
            details={
                "rubric": self.rubric.name,
                "dimensions": [
                    {**s.model_dump(), "minimum": self.rubric.minimum(s.name)} for s in scores
                ],
                "overall": overall,
                "passed": passed,
                **({"notes": list(outcome.notes)} if outcome.notes else {}),
            },
            usage=outcome.usage,
            judged=(outcome,),
        )
