"""Answer relevance: does the answer address the question that was asked?"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, ClassVar

from veracity.embeddings import Embedder, clipped_cosine, question_vector
from veracity.judges import JudgeOutcome
from veracity.metrics.base import Need, SampleWork, finished, judge_error
from veracity.prompts import earlier_turn, question_in_context, repeated_turn
from veracity.transport import CallFailedError
from veracity.types import MetricResult, Status, Usage


@dataclass(frozen=True, slots=True)
class AnswerRelevance:
    """The judge writes ``n_questions`` questions the answer would answer (one call,
    which also flags a noncommittal answer); the score is the mean cosine similarity,
    clipped at 0, between the real question and each generated one. A noncommittal
    answer scores 0, and so does one that repeats an earlier assistant turn nearly word
    for word when the question asks something new (:func:`~veracity.prompts.repeated_turn`;
    no judge call). Without an embedder, or if generation or embedding fails, the judge
    rates relevance directly (0–1) and the details say so and why.

    The judge reads the conversation before the question, if any, in both ways; the
    embeddings compare a follow-up question read after the latest user turn
    (:func:`~veracity.prompts.question_in_context`), as ``details["question_read_as"]``
    shows."""

    n_questions: int = 3
    name: str = "answer_relevance"
    reads_as_probability: ClassVar[bool] = False
    measures_correctness: ClassVar[bool] = False
    needs: frozenset[Need] = frozenset({Need.EMBEDDER})

    async def score(self, work: SampleWork) -> MetricResult:
        started = time.perf_counter()
        if not work.sample.answer.strip():
            return self._result(0.0, "the answer is empty: it addresses nothing",
                                {"method": "empty_answer"}, Usage(), started)  # fmt: skip
        repeated = repeated_turn(work.sample.question, work.sample.answer, work.sample.history)
        if repeated is not None:
            return self._result(
                0.0,
                f"the answer repeats the assistant's earlier turn {repeated.turn} nearly word "
                f"for word (word overlap {repeated.overlap:.2f}): it answers that turn's "
                "question, not this one",
                {"method": "repeats_earlier_turn", "turn": repeated.turn,
                 "overlap": repeated.overlap},
                Usage(),
                started,
            )  # fmt: skip
        usage = Usage()
        embedder = work.models.embedder
        fallback_because = "no embedding model is available"
        before: tuple[JudgeOutcome[Any], ...] = ()
        if embedder is not None:
            found, generated, fallback_because = await self._by_questions(work, embedder, started)
            if found is not None:
                return found
            usage, before = generated.usage, (generated,)
        rated = await work.judge.rate_relevance(
            work.sample.question,
            work.sample.answer,
            iteration=work.iteration,
            history=work.sample.history,
        )
        usage += rated.usage
        if rated.value is None:
            return judge_error(self.name, "relevance rating", rated, usage, started,
                               before=before, fallback_because=fallback_because)  # fmt: skip
        rating = rated.value
        # The probability-weighted rating, where the judge's log-probabilities give one.
        score = rating.score if rating.expected is None else rating.expected
        weighted = {} if rating.expected is None else {"written_rating": rating.score}
        return self._result(
            score,
            f"rated {score:.2f} by the judge directly ({fallback_because})",
            {"method": "judge_rating", "fallback_because": fallback_because,
             "judge_reason": rating.reason, **weighted},
            usage,
            started,
            (*before, rated),
        )  # fmt: skip

    async def _by_questions(
        self, work: SampleWork, embedder: Embedder, started: float
    ) -> tuple[MetricResult | None, JudgeOutcome[Any], str]:
        """The generated-questions score, or ``None`` and why it could not be had; and the
        outcome of generating the questions."""
        sample = work.sample
        generated = await work.judge.generate_questions(
            sample.answer,
            sample.contexts,
            n=self.n_questions,
            iteration=work.iteration,
            history=sample.history,
        )
        usage = generated.usage
        if generated.value is None:
            if generated.unsupported:  # by design (the offline judge), not a failure
                return None, generated, "this judge writes no questions"
            return None, generated, f"question generation failed: {generated.error}"
        found = generated.value
        details: dict[str, Any] = {"method": "generated_questions", "judge_reason": found.reason}
        if generated.notes:
            details["notes"] = list(generated.notes)
        if found.noncommittal:
            details.update(noncommittal=True, questions=list(found.questions))
            return (
                self._result(
                    0.0, "the answer is noncommittal", details, usage, started, (generated,)
                ),
                generated,
                "",
            )
        if not found.questions:
            return None, generated, "the judge generated no question"
        earlier = earlier_turn(sample.question, sample.history)
        if earlier is not None:
            details["question_read_as"] = question_in_context(sample.question, sample.history)
        try:
            vectors = await embedder.embed(
                [sample.question, *([earlier] if earlier else []), *found.questions]
            )
        except CallFailedError as exc:
            return None, generated, f"embedding failed: {exc}"
        asked = question_vector(vectors[0], vectors[1] if earlier else None)
        written = vectors[2:] if earlier else vectors[1:]
        similarities = [clipped_cosine(asked, row) for row in written]
        score = sum(similarities) / len(similarities)
        details.update(
            noncommittal=False,
            embedder=embedder.name,
            questions=[
                {"question": q, "similarity": s}
                for q, s in zip(found.questions, similarities, strict=True)
            ],
        )
        reason = (
            f"mean similarity {score:.3f} between the question and {len(similarities)} "
            "question(s) the answer would answer"
        )
        return self._result(score, reason, details, usage, started, (generated,)), generated, ""

    def _result(
        self,
        score: float,
        reason: str,
        details: dict[str, Any],
        usage: Usage,
        started: float,
        judged: tuple[JudgeOutcome[Any], ...] = (),
    ) -> MetricResult:
        return finished(
            self.name, score, Status.SCORED, reason, started,
            details=details, usage=usage, judged=judged,
        )  # fmt: skip
