"""The judge contract: the questions every metric may ask, answered by an LLM or offline."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from veracity.chat.base import Model
from veracity.types import (
    ChunkJudgement,
    ClaimVerdict,
    Classification,
    DimensionScore,
    FactualGrades,
    GeneratedQuestions,
    RelevanceRating,
    Rubric,
    Turn,
    Usage,
)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class JudgeOutcome(Generic[T]):
    """The answer to one judge question, or the reason there is none.

    ``raw_replies`` keeps what the judge said verbatim, so a failure can be inspected.
    """

    value: T | None
    error: str | None = None
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    raw_replies: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    # The judge cannot answer this kind of question at all (the offline judge and a
    # rubric, say): the metric says so with ``unsupported_by_judge``, never a made-up score.
    unsupported: bool = False
    # The input is too large to judge (over the prompt budget): ``invalid_input``.
    invalid_input: bool = False
    # How each reply behind the answer was read, in order, as (question, path): a path
    # is how the reply was read (strict, fenced, embedded, repaired, legacy_*) or why it
    # could not be (refusal, unparseable, schema, truncated). Empty for answers that are
    # no text reply (the offline judge, a decision model's probabilities).
    readings: tuple[tuple[str, str], ...] = ()

    @property
    def ok(self) -> bool:
        return self.error is None and self.value is not None


class Judge(Model, Protocol):
    """Answers the questions metrics ask. Implementations never raise for a bad reply:
    they return a :class:`JudgeOutcome` with ``error`` set instead."""

    async def extract_claims(
        self, question: str, text: str, *, iteration: int, history: Sequence[Turn] = ()
    ) -> JudgeOutcome[tuple[str, ...]]:
        """Atomic, self-contained claims of ``text`` (an answer or a reference), never of
        ``history``, the conversation before the question (it only tells what they refer to)."""
        ...

    async def verify_claims(
        self,
        claims: Sequence[str],
        contexts: Sequence[str],
        *,
        iteration: int,
        batch: bool = True,
    ) -> JudgeOutcome[tuple[ClaimVerdict, ...]]: ...

    async def judge_chunks(
        self,
        question: str,
        contexts: Sequence[str],
        reference: str | None,
        *,
        iteration: int,
        history: Sequence[Turn] = (),
    ) -> JudgeOutcome[tuple[ChunkJudgement, ...]]:
        """Every chunk's relevance to the question (as meant after ``history``), in
        retrieval order."""
        ...

    async def generate_questions(
        self,
        answer: str,
        contexts: Sequence[str],
        *,
        n: int,
        iteration: int,
        history: Sequence[Turn] = (),
    ) -> JudgeOutcome[GeneratedQuestions]: ...

    async def rate_relevance(
        self, question: str, answer: str, *, iteration: int, history: Sequence[Turn] = ()
    ) -> JudgeOutcome[RelevanceRating]: ...

    async def grade_factual_accuracy(
        self, question: str, answer: str, reference: str, *, iteration: int
    ) -> JudgeOutcome[FactualGrades]: ...

    async def classify_answer(
        self, question: str, answer: str, reference: str, *, iteration: int
    ) -> JudgeOutcome[Classification]: ...

    async def score_rubric(
        self,
        rubric: Rubric,
        question: str,
        answer: str,
        contexts: Sequence[str],
        *,
        iteration: int,
    ) -> JudgeOutcome[tuple[DimensionScore, ...]]: ...
