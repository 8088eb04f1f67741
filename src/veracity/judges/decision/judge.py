"""The decision judge: every judge question asked of a decision model as typed questions,
answered with a probability for every option in one pass, no text to parse."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from veracity.chat.base import OverModel
from veracity.decisions.base import Answer, DecisionModel, PartlyDecidedError
from veracity.judges.base import Judge, JudgeOutcome
from veracity.judges.budget import within_budget
from veracity.judges.decision import questions as q
from veracity.judges.decision.grouping import DEFAULT_WINDOW_S, Asked, Coalescer
from veracity.prompts import PromptBudget, PromptTooLarge, question_in_context
from veracity.prompts.budget import CHARS_PER_TOKEN
from veracity.prompts.decisions import (
    ANSWER_CLASS,
    DECISION_TEMPLATES,
    RELEVANCE_LEVEL,
    answer_state,
    contexts_state,
    graded_state,
    rubric_state,
    rubric_templates,
)
from veracity.transport import CallFailedError
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

__all__ = ["DecisionJudge"]

T = TypeVar("T")
# Where contexts are cut to fit the budget, the room left for the questions about them,
# the same whoever asks (about 1,500 tokens: some 15 claims), so they are cut alike; at
# most a quarter of a small budget (a decision server's short window), so the contexts
# keep the rest.
QUESTION_ROOM_CHARS = 6000
QUESTION_ROOM_SHARE = 4


def _chars_of(asked: Sequence[Asked]) -> int:
    """What ``asked`` sends beside the state: instructions and options' descriptions."""
    return sum(
        len(a.instructions) + sum(len(o.value) + len(o.description) for o in a.options)
        for a in asked
    )


async def _invalid(error: str) -> JudgeOutcome[Any]:
    return JudgeOutcome(value=None, error=error, invalid_input=True)


class DecisionJudge(OverModel[DecisionModel]):
    """A :class:`~veracity.judges.Judge` over a :class:`~veracity.decisions.DecisionModel`.

    Claims come from ``claims_judge`` (a chat judge: the hybrid) or, by default, from the
    offline sentence segmentation; each claim's verdict is a choice over supported /
    contradicted / not_enough_info with the numbered contexts as the state, its three
    probabilities kept on the claim. Chunk relevance is a predicate per passage about the
    same state, so claims and chunks of a sample go in one request
    (:class:`~veracity.judges.decision.grouping.Coalescer`: questions about one state wait
    ``window_s`` of quiet, and for the sample's claims being drawn, then go together).
    Relevance, classification, factual accuracy and rubrics are score and choice
    questions; writing questions is unsupported (a decision model writes no text), so
    answer relevance rates directly.

    A refused question is never a verdict: the outcome is an error naming it (one refused
    claim fails the whole verification, as a verdict missing from an LLM judge's reply
    does once re-asked). ``prompt_budget`` bounds what one question reads, by the rules of
    chat prompts.
    """

    def __init__(
        self,
        model: DecisionModel,
        *,
        claims_judge: Judge | None = None,
        prompt_budget: PromptBudget | None = None,
        window_s: float = DEFAULT_WINDOW_S,
        split_clauses: bool = True,
    ) -> None:
        if claims_judge is None:
            from veracity.embeddings.weights import require_modules

            require_modules(("pysbd",), "the decision judge's claim segmentation")
        self.model = model
        self.claims_judge = claims_judge
        self.prompt_budget = prompt_budget or PromptBudget()
        self.window_s = window_s
        self.split_clauses = split_clauses
        self._coalescer = Coalescer(model, window_s)

    def using(
        self, model: DecisionModel | None = None, claims_judge: Judge | None = None
    ) -> DecisionJudge:
        """The same judge asking ``model`` (behind a cache, say) and drawing claims with
        ``claims_judge``; each left ``None`` stays as it is."""
        return DecisionJudge(
            model or self.model,
            claims_judge=claims_judge or self.claims_judge,
            prompt_budget=self.prompt_budget,
            window_s=self.window_s,
            split_clauses=self.split_clauses,
        )

    def describe(self) -> dict[str, Any]:
        claims: dict[str, Any] = (
            {"source": "offline segmentation", "split_clauses": self.split_clauses}
            if self.claims_judge is None
            else {"source": "chat judge", "judge": self.claims_judge.describe()}
        )
        return {
            **self.model.describe(),
            "judge": "decision",
            "claims": claims,
            # Named as a chat judge's prompts, so calibrations and agreement tell judges apart.
            "prompts": {t.id: t.fingerprint for t in DECISION_TEMPLATES},
            "grouping_window_s": self.window_s,
            "prompt_budget": dataclasses.asdict(self.prompt_budget),
        }

    async def aclose(self) -> None:
        await self.model.aclose()
        if self.claims_judge is not None:
            await self.claims_judge.aclose()

    # asking ----------------------------------------------------------------------------

    async def _decide(
        self,
        state: str,
        asked: Sequence[Asked],
        iteration: int,
        read: Callable[[tuple[Answer, ...]], T],
        *,
        awaits: str | None = None,
        claims: bool = False,
    ) -> JudgeOutcome[T]:
        """The answers to ``asked`` about ``state``, read into a value; a failed request or
        a refused question is an error outcome with the reason."""
        try:
            decided = await self._coalescer.ask(
                state, asked, iteration=iteration, awaits=awaits, claims=claims
            )
        except CallFailedError as exc:
            # Parts of the request that came back before one failed still cost tokens.
            spent = exc.reply if isinstance(exc, PartlyDecidedError) else None
            return JudgeOutcome(
                value=None,
                error=f"judge call failed: {exc}",
                usage=spent.usage if spent else Usage(),
                latency_s=spent.latency_s if spent else 0.0,
                notes=spent.notes if spent else (),
            )
        try:
            value = read(decided.answers)
        except q.Refused as exc:
            return JudgeOutcome(
                value=None,
                error=str(exc),
                usage=decided.usage,
                latency_s=decided.latency_s,
                notes=decided.notes,
            )
        return JudgeOutcome(
            value=value, usage=decided.usage, latency_s=decided.latency_s, notes=decided.notes
        )

    def _fitted(
        self,
        texts: Sequence[str],
        contexts: Sequence[str],
        asked: Sequence[Asked],
        ask: Callable[[tuple[str, ...]], Awaitable[JudgeOutcome[T]]],
    ) -> Awaitable[JudgeOutcome[T]]:
        """``ask`` with the contexts that fit the budget beside ``texts`` and the
        questions' own words; nothing is asked over it."""
        return within_budget(self.prompt_budget, texts, contexts, ask, fixed_chars=_chars_of(asked))

    def _fitted_contexts(
        self,
        contexts: Sequence[str],
        asked: Sequence[Asked],
        ask: Callable[[tuple[str, ...]], Awaitable[JudgeOutcome[T]]],
    ) -> Awaitable[JudgeOutcome[T]]:
        """``ask`` about the contexts as they fit the budget beside ``asked``. Contexts cut
        to fit are cut alike for every caller (beside a fixed room for questions, checked
        after), so claims and chunks still share one state and one request."""
        if not self.prompt_budget.truncate_contexts:
            return self._fitted((), contexts, asked, ask)
        own = _chars_of(asked)

        def checked(fitted: tuple[str, ...]) -> Awaitable[JudgeOutcome[T]]:
            try:
                self.prompt_budget.fit((), fitted, fixed_chars=own)
            except PromptTooLarge as exc:
                return _invalid(str(exc))
            return ask(fitted)

        budget_chars = self.prompt_budget.tokens * CHARS_PER_TOKEN
        room = max(own, min(QUESTION_ROOM_CHARS, budget_chars // QUESTION_ROOM_SHARE))
        return within_budget(self.prompt_budget, (), contexts, checked, fixed_chars=room)

    # claims ----------------------------------------------------------------------------

    async def extract_claims(
        self, question: str, text: str, *, iteration: int, history: Sequence[Turn] = ()
    ) -> JudgeOutcome[tuple[str, ...]]:
        # Marked in flight, so a request about this sample's contexts waits for its claims.
        with self._coalescer.extracting(question, iteration) as extraction:
            if self.claims_judge is not None:
                drawn = await self.claims_judge.extract_claims(
                    question, text, iteration=iteration, history=history
                )
                # Its tokens are the chat model's, priced at its price, not the decision model's.
                outcome = dataclasses.replace(
                    drawn, usage=drawn.usage.spent_by(self.claims_judge.name)
                )
            else:
                outcome = await within_budget(
                    self.prompt_budget,
                    (question, text),
                    (),
                    lambda _: self._segment(question, text),
                )
            extraction.found = bool(outcome.value)
            return outcome

    async def _segment(self, question: str, text: str) -> JudgeOutcome[tuple[str, ...]]:
        from veracity.judges.offline.claims import extract

        found = await asyncio.to_thread(
            extract, text, split_clauses=self.split_clauses, question=question
        )
        return JudgeOutcome(value=found.claims, notes=found.notes())

    async def verify_claims(
        self,
        claims: Sequence[str],
        contexts: Sequence[str],
        *,
        iteration: int,
        batch: bool = True,
    ) -> JudgeOutcome[tuple[ClaimVerdict, ...]]:
        # ``batch`` changes nothing: every claim is its own question, all in one request.
        claims = tuple(claims)
        if not claims:
            return JudgeOutcome(value=())
        asked = q.claim_questions(claims)

        def ask(fitted: tuple[str, ...]) -> Awaitable[JudgeOutcome[tuple[ClaimVerdict, ...]]]:
            return self._decide(
                contexts_state(fitted),
                asked,
                iteration,
                lambda answers: q.read_verdicts(claims, answers),
                claims=True,
            )

        return await self._fitted_contexts(contexts, asked, ask)

    async def judge_chunks(
        self,
        question: str,
        contexts: Sequence[str],
        reference: str | None,
        *,
        iteration: int,
        history: Sequence[Turn] = (),
    ) -> JudgeOutcome[tuple[ChunkJudgement, ...]]:
        # The question goes in the instructions, so these share the claims' state (the
        # contexts alone); a follow-up question is read after the latest user turn.
        read_as = question_in_context(question, history)
        asked = q.chunk_questions(read_as, len(contexts), reference)

        def ask(fitted: tuple[str, ...]) -> Awaitable[JudgeOutcome[tuple[ChunkJudgement, ...]]]:
            return self._decide(
                contexts_state(fitted), asked, iteration, q.read_chunks, awaits=question
            )

        outcome = await self._fitted_contexts(contexts, asked, ask)
        if read_as != question and outcome.value is not None:
            note = f"the question is a follow-up: asked as {read_as!r}"
            outcome = dataclasses.replace(outcome, notes=(note, *outcome.notes))
        return outcome

    # the answer ------------------------------------------------------------------------

    async def generate_questions(
        self,
        answer: str,
        contexts: Sequence[str],
        *,
        n: int,
        iteration: int,
        history: Sequence[Turn] = (),
    ) -> JudgeOutcome[GeneratedQuestions]:
        return JudgeOutcome(
            value=None,
            error="a decision model writes no text, so it cannot write questions",
            unsupported=True,
        )

    def _about_texts(
        self,
        texts: Sequence[str],
        state: str,
        asked: Sequence[Asked],
        iteration: int,
        read: Callable[[tuple[Answer, ...]], T],
    ) -> Awaitable[JudgeOutcome[T]]:
        """``asked`` about ``state``, made of ``texts`` and no contexts (none to cut)."""
        return self._fitted(texts, (), asked, lambda _: self._decide(state, asked, iteration, read))

    async def rate_relevance(
        self, question: str, answer: str, *, iteration: int, history: Sequence[Turn] = ()
    ) -> JudgeOutcome[RelevanceRating]:
        return await self._about_texts(
            (question, answer, *(turn.content for turn in history)),
            answer_state(question, answer, history),
            (q.template_question(RELEVANCE_LEVEL),),
            iteration,
            lambda answers: q.read_relevance(answers[0]),
        )

    async def classify_answer(
        self, question: str, answer: str, reference: str, *, iteration: int
    ) -> JudgeOutcome[Classification]:
        return await self._about_texts(
            (question, answer, reference),
            graded_state(question, answer, reference),
            (q.template_question(ANSWER_CLASS),),
            iteration,
            lambda answers: q.read_classification(answers[0]),
        )

    async def grade_factual_accuracy(
        self, question: str, answer: str, reference: str, *, iteration: int
    ) -> JudgeOutcome[FactualGrades]:
        # The same state as the classification's: both travel in one request.
        return await self._about_texts(
            (question, answer, reference),
            graded_state(question, answer, reference),
            q.factual_questions(),
            iteration,
            q.read_factual,
        )

    async def score_rubric(
        self,
        rubric: Rubric,
        question: str,
        answer: str,
        contexts: Sequence[str],
        *,
        iteration: int,
    ) -> JudgeOutcome[tuple[DimensionScore, ...]]:
        asked = tuple(q.template_question(t) for t in rubric_templates(rubric))
        names = [d.name for d in rubric.dimensions]

        def ask(fitted: tuple[str, ...]) -> Awaitable[JudgeOutcome[tuple[DimensionScore, ...]]]:
            return self._decide(
                rubric_state(question, answer, fitted),
                asked,
                iteration,
                lambda answers: q.read_rubric(names, answers),
            )

        return await self._fitted((question, answer), contexts, asked, ask)


if TYPE_CHECKING:
    from veracity.decisions.scripted import ScriptedDecisions

    # mypy proves the decision judge satisfies the Judge protocol.
    _AS_JUDGE: Judge = DecisionJudge(ScriptedDecisions(table={}))
