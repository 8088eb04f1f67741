"""The LLM judge: every judge question, asked of a chat model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from veracity.judges.base import JudgeOutcome
from veracity.judges.chat.base import ChatModel
from veracity.judges.llm import chunks, claims
from veracity.judges.llm.asking import Exchange, Unusable, ask, ask_once
from veracity.judges.parsing import (
    ParsedRubric,
    parse_classification_reply,
    parse_factual_reply,
    parse_questions_reply,
    parse_rating_reply,
    parse_rubric_reply,
)
from veracity.prompts import (
    ALL_TEMPLATES,
    ANSWER_CLASSIFICATION,
    FACTUAL_ACCURACY,
    QUESTION_GENERATION,
    RELEVANCE_RATING,
    render_classification,
    render_factual_accuracy,
    render_question_generation,
    render_relevance_rating,
    render_rubric,
    rubric_template,
)
from veracity.types import (
    ChunkJudgement,
    ClaimVerdict,
    Classification,
    DimensionScore,
    FactualGrades,
    GeneratedQuestions,
    RelevanceRating,
    Rubric,
)


class LLMJudge:
    """Answers the judge questions with prompts to a :class:`ChatModel`.

    Each reply goes through the tolerant parser; a reply that still can't be used earns
    one re-ask that shows the judge its parse error; items (claims, chunks) missing from
    a batched reply are asked for again, only those.
    """

    def __init__(self, model: ChatModel) -> None:
        self.model = model

    @property
    def name(self) -> str:
        return self.model.name

    @property
    def concurrency(self) -> int:
        return self.model.concurrency

    def describe(self) -> dict[str, Any]:
        return {
            **self.model.describe(),
            "prompts": {t.id: t.fingerprint for t in ALL_TEMPLATES},
        }

    async def aclose(self) -> None:
        await self.model.aclose()

    async def extract_claims(
        self, question: str, text: str, *, iteration: int
    ) -> JudgeOutcome[tuple[str, ...]]:
        return await claims.extract_claims(self.model, question, text, iteration)

    async def verify_claims(
        self,
        claims_: Sequence[str],
        contexts: Sequence[str],
        *,
        iteration: int,
        batch: bool = True,
    ) -> JudgeOutcome[tuple[ClaimVerdict, ...]]:
        return await claims.verify_claims(self.model, claims_, contexts, iteration, batch)

    async def judge_chunks(
        self,
        question: str,
        contexts: Sequence[str],
        reference: str | None,
        *,
        iteration: int,
    ) -> JudgeOutcome[tuple[ChunkJudgement, ...]]:
        return await chunks.judge_chunks(self.model, question, contexts, reference, iteration)

    async def generate_questions(
        self, answer: str, contexts: Sequence[str], *, n: int, iteration: int
    ) -> JudgeOutcome[GeneratedQuestions]:
        prompt = QUESTION_GENERATION.render(**render_question_generation(answer, contexts, n))
        return await ask_once(self.model, prompt, parse_questions_reply, iteration)

    async def rate_relevance(
        self, question: str, answer: str, *, iteration: int
    ) -> JudgeOutcome[RelevanceRating]:
        prompt = RELEVANCE_RATING.render(**render_relevance_rating(question, answer))
        return await ask_once(self.model, prompt, parse_rating_reply, iteration)

    async def grade_factual_accuracy(
        self, question: str, answer: str, reference: str, *, iteration: int
    ) -> JudgeOutcome[FactualGrades]:
        prompt = FACTUAL_ACCURACY.render(**render_factual_accuracy(question, answer, reference))
        return await ask_once(self.model, prompt, parse_factual_reply, iteration)

    async def classify_answer(
        self, question: str, answer: str, reference: str, *, iteration: int
    ) -> JudgeOutcome[Classification]:
        prompt = ANSWER_CLASSIFICATION.render(**render_classification(question, answer, reference))
        return await ask_once(self.model, prompt, parse_classification_reply, iteration)

    async def score_rubric(
        self,
        rubric: Rubric,
        question: str,
        answer: str,
        contexts: Sequence[str],
        *,
        iteration: int,
    ) -> JudgeOutcome[tuple[DimensionScore, ...]]:
        exchange = Exchange()
        prompt = rubric_template(rubric).render(**render_rubric(question, answer, contexts))
        try:
            parsed: ParsedRubric = await ask(
                self.model, prompt, lambda text: parse_rubric_reply(text, rubric),
                exchange, iteration,
            )  # fmt: skip
        except Unusable as exc:
            return exchange.outcome(None, str(exc))
        exchange.notes.extend(parsed.notes)
        return exchange.outcome(parsed.scores)
