"""The LLM judge: every judge question, asked of a chat model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from veracity.judges.base import JudgeOutcome
from veracity.judges.chat.base import ChatModel
from veracity.judges.llm import chunks, claims
from veracity.judges.llm.asking import Asker, Exchange, Unusable, ask, ask_once
from veracity.judges.llm.evidence import DEFAULT_UNFOUNDED_SUPPORT, UnfoundedSupport
from veracity.judges.parsing import (
    ParsedRubric,
    parse_classification_reply,
    parse_factual_reply,
    parse_questions_reply,
    parse_rating_reply,
    parse_rubric_reply,
    with_expected_criteria,
    with_expected_scores,
)
from veracity.prompts import (
    ALL_TEMPLATES,
    ANSWER_CLASSIFICATION,
    FACTUAL_ACCURACY,
    QUESTION_GENERATION,
    RELEVANCE_RATING,
    checked_reply_bounds,
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
    one re-ask that shows the judge its parse error (a reply cut off is asked for again
    with more room); items (claims, chunks) missing from a batched reply are asked for
    again, only those. ``max_tokens`` bounds the replies of some questions (by template
    id, e.g. ``{"claim_verification": 2000}``) other than by their defaults.
    """

    def __init__(
        self,
        model: ChatModel,
        *,
        max_tokens: Mapping[str, int] | None = None,
        unfounded_support: UnfoundedSupport = DEFAULT_UNFOUNDED_SUPPORT,
    ) -> None:
        self.model = model
        self.asker = Asker(model, checked_reply_bounds(max_tokens or {}))
        self.unfounded_support = unfounded_support

    def using(self, model: ChatModel) -> LLMJudge:
        """The same judge, asking ``model`` (the same model behind a cache, say)."""
        return LLMJudge(
            model, max_tokens=self.asker.max_tokens, unfounded_support=self.unfounded_support
        )

    @property
    def name(self) -> str:
        return self.model.name

    @property
    def concurrency(self) -> int:
        return self.model.concurrency

    def describe(self) -> dict[str, Any]:
        described = {
            **self.model.describe(),
            "prompts": {t.id: t.fingerprint for t in ALL_TEMPLATES},
            "unfounded_support": self.unfounded_support,
        }
        if self.asker.max_tokens:
            described["max_tokens"] = dict(self.asker.max_tokens)
        return described

    async def aclose(self) -> None:
        await self.model.aclose()

    async def extract_claims(
        self, question: str, text: str, *, iteration: int
    ) -> JudgeOutcome[tuple[str, ...]]:
        return await claims.extract_claims(self.asker, question, text, iteration)

    async def verify_claims(
        self,
        claims_: Sequence[str],
        contexts: Sequence[str],
        *,
        iteration: int,
        batch: bool = True,
    ) -> JudgeOutcome[tuple[ClaimVerdict, ...]]:
        return await claims.verify_claims(
            self.asker, claims_, contexts, iteration, batch, self.unfounded_support
        )

    async def judge_chunks(
        self,
        question: str,
        contexts: Sequence[str],
        reference: str | None,
        *,
        iteration: int,
    ) -> JudgeOutcome[tuple[ChunkJudgement, ...]]:
        return await chunks.judge_chunks(self.asker, question, contexts, reference, iteration)

    async def generate_questions(
        self, answer: str, contexts: Sequence[str], *, n: int, iteration: int
    ) -> JudgeOutcome[GeneratedQuestions]:
        prompt = self.asker.prompt(
            QUESTION_GENERATION, render_question_generation(answer, contexts, n)
        )
        return await ask_once(self.model, prompt, parse_questions_reply, iteration)

    async def rate_relevance(
        self, question: str, answer: str, *, iteration: int
    ) -> JudgeOutcome[RelevanceRating]:
        prompt = self.asker.prompt(RELEVANCE_RATING, render_relevance_rating(question, answer))
        return await ask_once(self.model, prompt, parse_rating_reply, iteration)

    async def grade_factual_accuracy(
        self, question: str, answer: str, reference: str, *, iteration: int
    ) -> JudgeOutcome[FactualGrades]:
        prompt = self.asker.prompt(
            FACTUAL_ACCURACY, render_factual_accuracy(question, answer, reference)
        )
        return await ask_once(
            self.model, prompt, parse_factual_reply, iteration, refine=with_expected_criteria
        )

    async def classify_answer(
        self, question: str, answer: str, reference: str, *, iteration: int
    ) -> JudgeOutcome[Classification]:
        prompt = self.asker.prompt(
            ANSWER_CLASSIFICATION, render_classification(question, answer, reference)
        )
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
        prompt = self.asker.prompt(
            rubric_template(rubric), render_rubric(question, answer, contexts)
        )
        try:
            parsed: ParsedRubric
            parsed, reply = await ask(
                self.model, prompt, lambda text: parse_rubric_reply(text, rubric),
                exchange, iteration,
            )  # fmt: skip
        except Unusable as exc:
            return exchange.outcome(None, str(exc))
        exchange.notes.extend(parsed.notes)
        return exchange.outcome(with_expected_scores(parsed.scores, reply.text, reply.tokens))
