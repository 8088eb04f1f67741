"""Answer classification: correct, wrong, or an honest "don't know"."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from veracity.judges import JudgeOutcome
from veracity.metrics.base import (
    Need,
    SampleWork,
    finished,
    has_reference,
    judge_error,
    missing_reference,
)
from veracity.prompts import DEFAULT_ABSTENTION_PHRASES, abstains
from veracity.types import AnswerClass, MetricResult, Status, Usage


@dataclass(frozen=True, slots=True)
class AnswerClassification:
    """An answer that only abstains ("I don't know", "the documents don't say", … on word
    boundaries, with courtesy around it; the phrases are configurable; see
    :func:`~veracity.prompts.abstains`) is ``dont_know`` without a judge call; otherwise
    the judge classifies the answer against the reference (a hedge that still commits to
    an answer is judged). Score: 1 correct, 0 otherwise."""

    abstention_phrases: Sequence[str] = DEFAULT_ABSTENTION_PHRASES
    name: str = "answer_classification"
    reads_as_probability: ClassVar[bool] = True
    measures_correctness: ClassVar[bool] = True
    needs: frozenset[Need] = frozenset()

    async def score(self, work: SampleWork) -> MetricResult:
        started = time.perf_counter()
        sample = work.sample
        if not sample.answer.strip():
            return self._result(AnswerClass.DONT_KNOW, "the answer is empty", "empty_answer",
                                Usage(), started)  # fmt: skip
        phrase = abstains(sample.answer, self.abstention_phrases)
        if phrase is not None:
            return self._result(
                AnswerClass.DONT_KNOW,
                f"the answer abstains ({phrase!r})",
                "abstention_phrase",
                Usage(),
                started,
            )
        if not has_reference(sample):
            return missing_reference(self.name, started)
        outcome = await work.judge.classify_answer(
            sample.question, sample.answer, sample.reference or "", iteration=work.iteration
        )
        if outcome.value is None:
            return judge_error(self.name, "classification", outcome, outcome.usage, started)
        found = outcome.value
        return self._result(
            found.label, found.reason, "judge", outcome.usage, started, found.probabilities,
            (outcome,),
        )  # fmt: skip

    def _result(
        self,
        label: AnswerClass,
        why: str,
        method: str,
        usage: Usage,
        started: float,
        probabilities: Mapping[AnswerClass, float] | None = None,
        judged: tuple[JudgeOutcome[Any], ...] = (),
    ) -> MetricResult:
        # The label stays the one the judge wrote; its weight among the three, where the
        # judge's log-probabilities give it, is in the details.
        weights = {} if probabilities is None else {
            "probabilities": {label.value: p for label, p in probabilities.items()}
        }  # fmt: skip
        return finished(
            self.name,
            1.0 if label is AnswerClass.CORRECT else 0.0,
            Status.SCORED,
            f"{label.value}: {why}" if why else label.value,
            started,
            details={"classification": label.value, "method": method, **weights},
            usage=usage,
            judged=judged,
        )
