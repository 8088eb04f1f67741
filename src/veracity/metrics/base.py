"""What a metric is, and the per-sample work that metrics share."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Protocol

from veracity.judges import Judge, JudgeOutcome
from veracity.types import MetricResult, Sample, Status, Usage


class SampleWork:
    """Judge answers about one sample in one iteration, computed once and shared.

    Claims extracted for faithfulness are the same claims any other metric of this
    sample and iteration sees; the judge is asked once. The usage of shared work is
    charged to the first result that uses it, so totals add up exactly.
    """

    def __init__(self, sample: Sample, judge: Judge, iteration: int) -> None:
        self.sample = sample
        self.judge = judge
        self.iteration = iteration
        self._claims: asyncio.Task[JudgeOutcome[tuple[str, ...]]] | None = None
        self._charged: set[int] = set()

    async def claims(self) -> JudgeOutcome[tuple[str, ...]]:
        if self._claims is None:
            self._claims = asyncio.ensure_future(
                self.judge.extract_claims(
                    self.sample.question, self.sample.answer, iteration=self.iteration
                )
            )
        return await self._claims

    def charge(self, outcome: JudgeOutcome[Any]) -> Usage:
        """The usage of ``outcome`` the first time it is charged, nothing after."""
        if id(outcome) in self._charged:
            return Usage()
        self._charged.add(id(outcome))
        return outcome.usage


def judge_error(
    metric: str,
    step: str,
    outcome: JudgeOutcome[Any],
    usage: Usage,
    started: float,
    **details: Any,
) -> MetricResult:
    """The result when the judge failed at ``step``: no score, the reason, the raw replies."""
    details["raw_replies"] = list(outcome.raw_replies)
    if outcome.notes:
        details["notes"] = list(outcome.notes)
    return MetricResult(
        metric=metric,
        score=None,
        status=Status.JUDGE_ERROR,
        reason=f"{step} failed: {outcome.error}",
        details=details,
        usage=usage,
        latency_s=time.perf_counter() - started,
    )


class Metric(Protocol):
    """A metric scores one sample. It is stateless: all it needs is in ``work``."""

    @property
    def name(self) -> str: ...

    async def score(self, work: SampleWork) -> MetricResult: ...
