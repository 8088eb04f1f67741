"""The LLM judge: every judge question, asked of a chat model."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

from veracity.chat.base import ChatModel, OverModel
from veracity.judges.base import JudgeOutcome
from veracity.judges.budget import within_budget
from veracity.judges.llm import chunks, claims
from veracity.judges.llm.asking import Asker, ask_once
from veracity.judges.llm.evidence import DEFAULT_UNFOUNDED_SUPPORT, UnfoundedSupport
from veracity.judges.parsing.reader import ParsedValue, ParseFailure
from veracity.judges.parsing.replies import (
    read_classification_reply,
    read_factual_reply,
    read_questions_reply,
    read_rating_reply,
    read_rubric_reply,
    with_expected_criteria,
    with_expected_rating,
    with_expected_scores,
    with_label_probabilities,
)
from veracity.prompts import (
    ALL_TEMPLATES,
    ANSWER_CLASSIFICATION,
    CHUNK_RELEVANCE,
    CLAIM_EXTRACTION,
    CLAIM_VERIFICATION,
    FACTUAL_ACCURACY,
    QUESTION_GENERATION,
    RELEVANCE_RATING,
    PromptBudget,
    PromptTemplate,
    checked_reply_bounds,
    conversation_fingerprints,
    history_size,
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
    Turn,
)

T = TypeVar("T")


class LLMJudge(OverModel[ChatModel]):
    """Answers the judge questions with prompts to a :class:`ChatModel`.

    Each reply goes through the tolerant parser; a reply that still can't be used earns
    one re-ask that shows the judge its parse error (a reply cut off is asked for again
    with more room); items (claims, chunks) missing from a batched reply are asked for
    again, only those. ``max_tokens`` bounds the replies of some questions (by template
    id, e.g. ``{"claim_verification": 2000}``) other than by their defaults.

    ``prompt_budget`` bounds what one call sends (see :class:`~veracity.prompts.PromptBudget`):
    a question whose prompt would be larger is not asked, and its outcome is
    ``invalid_input`` with the size, unless the budget lets the contexts be cut to fit.
    """

    def __init__(
        self,
        model: ChatModel,
        *,
        max_tokens: Mapping[str, int] | None = None,
        unfounded_support: UnfoundedSupport = DEFAULT_UNFOUNDED_SUPPORT,
        prompt_budget: PromptBudget | None = None,
    ) -> None:
        self.model = model
        self.asker = Asker(model, checked_reply_bounds(max_tokens or {}))
        self.unfounded_support = unfounded_support
        self.prompt_budget = prompt_budget or PromptBudget()

    def using(self, model: ChatModel) -> LLMJudge:
        """The same judge, asking ``model`` (the same model behind a cache, say)."""
        return LLMJudge(
            model,
            max_tokens=self.asker.max_tokens,
            unfounded_support=self.unfounded_support,
            prompt_budget=self.prompt_budget,
        )

    def describe(self) -> dict[str, Any]:
        described = {
            **self.model.describe(),
            "prompts": {t.id: t.fingerprint for t in ALL_TEMPLATES},
            # The same prompts about a sample with history (a key of its own, so the
            # prompts of a run without history are recorded as they always were).
            "conversation_prompts": conversation_fingerprints(ALL_TEMPLATES),
            "unfounded_support": self.unfounded_support,
            "prompt_budget": dataclasses.asdict(self.prompt_budget),
        }
        if self.asker.max_tokens:
            described["max_tokens"] = dict(self.asker.max_tokens)
        return described

    async def ask(
        self,
        template: PromptTemplate,
        blocks: Mapping[str, str],
        read: Callable[[str], ParsedValue[T] | ParseFailure],
        *,
        items: int = 0,
        iteration: int = 0,
    ) -> JudgeOutcome[T]:
        """Any question of ``template`` (one beyond the metrics', such as generating a test
        set), its reply read by ``read``, re-asked once when it cannot be read."""
        prompt = self.asker.prompt(template, blocks, items=items)
        return await ask_once(self.model, prompt, read, iteration)

    def _fitted(
        self,
        template: PromptTemplate,
        texts: Sequence[str],
        contexts: Sequence[str],
        ask: Callable[[tuple[str, ...]], Awaitable[JudgeOutcome[T]]],
        history: Sequence[Turn] = (),
    ) -> Awaitable[JudgeOutcome[T]]:
        """``ask`` with the contexts that fit ``template``'s prompt (the conversation before
        the question counted in); nothing is rendered for a question over the budget."""
        turns, shown = history_size(template, history)
        return within_budget(
            self.prompt_budget,
            (*texts, *turns),
            contexts,
            ask,
            fixed_chars=template.fixed_chars + shown,
        )

    async def extract_claims(
        self, question: str, text: str, *, iteration: int, history: Sequence[Turn] = ()
    ) -> JudgeOutcome[tuple[str, ...]]:
        return await self._fitted(
            CLAIM_EXTRACTION,
            (question, text),
            (),
            lambda _: claims.extract_claims(self.asker, question, text, iteration, history),
            history,
        )

    async def verify_claims(
        self,
        claims_: Sequence[str],
        contexts: Sequence[str],
        *,
        iteration: int,
        batch: bool = True,
    ) -> JudgeOutcome[tuple[ClaimVerdict, ...]]:
        # One call asks about every claim, or about one (the longest is the largest call).
        asked = claims_ if batch else [max(claims_, key=len, default="")]
        return await self._fitted(
            CLAIM_VERIFICATION,
            asked,
            contexts,
            lambda fitted: claims.verify_claims(
                self.asker, claims_, fitted, iteration, batch, self.unfounded_support
            ),
        )

    async def judge_chunks(
        self,
        question: str,
        contexts: Sequence[str],
        reference: str | None,
        *,
        iteration: int,
        history: Sequence[Turn] = (),
    ) -> JudgeOutcome[tuple[ChunkJudgement, ...]]:
        return await self._fitted(
            CHUNK_RELEVANCE,
            (question, reference or ""),
            contexts,
            lambda fitted: chunks.judge_chunks(
                self.asker, question, fitted, reference, iteration, history
            ),
            history,
        )

    async def generate_questions(
        self,
        answer: str,
        contexts: Sequence[str],
        *,
        n: int,
        iteration: int,
        history: Sequence[Turn] = (),
    ) -> JudgeOutcome[GeneratedQuestions]:
        def ask(fitted: tuple[str, ...]) -> Awaitable[JudgeOutcome[GeneratedQuestions]]:
            prompt = self.asker.prompt(
                QUESTION_GENERATION, render_question_generation(answer, fitted, n), history=history
            )
            return ask_once(self.model, prompt, read_questions_reply, iteration)

        return await self._fitted(QUESTION_GENERATION, (answer,), contexts, ask, history)

    async def rate_relevance(
        self, question: str, answer: str, *, iteration: int, history: Sequence[Turn] = ()
    ) -> JudgeOutcome[RelevanceRating]:
        def ask(_: tuple[str, ...]) -> Awaitable[JudgeOutcome[RelevanceRating]]:
            prompt = self.asker.prompt(
                RELEVANCE_RATING, render_relevance_rating(question, answer), history=history
            )
            return ask_once(
                self.model, prompt, read_rating_reply, iteration, refine=with_expected_rating
            )

        return await self._fitted(RELEVANCE_RATING, (question, answer), (), ask, history)

    async def grade_factual_accuracy(
        self, question: str, answer: str, reference: str, *, iteration: int
    ) -> JudgeOutcome[FactualGrades]:
        def ask(_: tuple[str, ...]) -> Awaitable[JudgeOutcome[FactualGrades]]:
            prompt = self.asker.prompt(
                FACTUAL_ACCURACY, render_factual_accuracy(question, answer, reference)
            )
            return ask_once(
                self.model, prompt, read_factual_reply, iteration, refine=with_expected_criteria
            )

        return await self._fitted(FACTUAL_ACCURACY, (question, answer, reference), (), ask)

    async def classify_answer(
        self, question: str, answer: str, reference: str, *, iteration: int
    ) -> JudgeOutcome[Classification]:
        def ask(_: tuple[str, ...]) -> Awaitable[JudgeOutcome[Classification]]:
            prompt = self.asker.prompt(
                ANSWER_CLASSIFICATION, render_classification(question, answer, reference)
            )
            return ask_once(
                self.model,
                prompt,
                read_classification_reply,
                iteration,
                refine=with_label_probabilities,
            )

        return await self._fitted(ANSWER_CLASSIFICATION, (question, answer, reference), (), ask)

    async def score_rubric(
        self,
        rubric: Rubric,
        question: str,
        answer: str,
        contexts: Sequence[str],
        *,
        iteration: int,
    ) -> JudgeOutcome[tuple[DimensionScore, ...]]:
        template = rubric_template(rubric)

        def score(fitted: tuple[str, ...]) -> Awaitable[JudgeOutcome[tuple[DimensionScore, ...]]]:
            prompt = self.asker.prompt(template, render_rubric(question, answer, fitted))
            return ask_once(
                self.model,
                prompt,
                lambda text: read_rubric_reply(text, rubric),
                iteration,
                refine=with_expected_scores,
            )

        return await self._fitted(template, (question, answer), contexts, score)
