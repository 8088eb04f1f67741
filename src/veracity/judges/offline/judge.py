"""The offline judge: every judge question answered with a local embedding model and
alignment features, no network and no cost."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from veracity.embeddings import (
    Embedder,
    Matrix,
    ModelOutputError,
    clipped_cosine,
    cut_texts,
    question_vector,
)
from veracity.embeddings.local import DEFAULT_NAME as DEFAULT_EMBEDDER
from veracity.embeddings.weights import (
    MissingLocalModelError,
    ModelIntegrityError,
    require_modules,
)
from veracity.judges.base import JudgeOutcome
from veracity.judges.budget import within_budget
from veracity.judges.offline.chunks import judge_chunks
from veracity.judges.offline.claims import (
    agreeing_replies,
    conjuncts,
    extract,
    polar_parts,
    short_reply_parts,
)
from veracity.judges.offline.features import FEATURES, ClaimFeatures, features_of
from veracity.judges.offline.params import OfflineParams, ParamsError, load_params
from veracity.judges.offline.verdicts import (
    Assessment,
    answering,
    assess,
    classify,
    conjoined,
    replied,
)
from veracity.prompts import PromptBudget, abstains, earlier_turn, question_in_context
from veracity.transport import JudgeFatalError
from veracity.transport.limits import DEFAULT_CONCURRENCY
from veracity.types import (
    AnswerClass,
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

NEEDS_LLM = "needs an LLM judge: the offline judge cannot {what} honestly, so it gives no score"


class OfflineJudge:
    """A :class:`~veracity.judges.Judge` with local models only (see ``docs/offline_judge.md``).

    Claims come from sentence segmentation and clause splitting; verdicts from a logistic
    model (fitted on the development sets, shipped as ``params.json``) over the cosine of
    the claim with its best-aligned context window and features cosine misses: word
    coverage, numbers, names and negation. Chunk relevance and answer relevance come from
    the embeddings. Question generation, factual accuracy and rubrics are unsupported.
    Of a conversation before the question it reads only what a follow-up question leans
    on: chunk relevance and relevance ratings take such a question after the latest user
    turn (:func:`~veracity.prompts.question_in_context`).

    ``embedder`` defaults to the local all-MiniLM-L6-v2, created on first use.
    ``concurrency`` is the samples being worked on at once (the runner holds twice as
    many): the embedder merges their texts into one batch, and larger batches keep the
    model busier.

    ``prompt_budget`` bounds the text one question reads, as it bounds an LLM judge's
    prompt (the same estimate, without instructions): segmenting and embedding grow with
    the text, so a larger input is ``invalid_input`` with its size, unless the budget lets
    the contexts be cut to fit.
    """

    def __init__(
        self,
        embedder: Embedder | None = None,
        params: OfflineParams | None = None,
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        split_clauses: bool = True,
        prompt_budget: PromptBudget | None = None,
    ) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency}")
        require_modules(("pysbd",), "the offline judge")
        self.params = params if params is not None else load_params()
        if self.params.features != FEATURES:
            raise ParamsError(
                f"the parameters are for features {list(self.params.features)}, "
                f"this judge computes {list(FEATURES)}: refit with benchmarks/offline_fit.py"
            )
        self.split_clauses = split_clauses
        self.prompt_budget = prompt_budget or PromptBudget()
        self._embedder = embedder
        self._owns_embedder = embedder is None
        self._concurrency = concurrency

    @property
    def name(self) -> str:
        # The default model given as an instance is the same judge (and keeps its default
        # calibration); another model makes another judge.
        default = self.embedder_name == DEFAULT_EMBEDDER
        model = "minilm" if default else self.embedder_name.replace("/", "-")
        return f"offline/{model}-{self.params.version}"

    @property
    def embedder_name(self) -> str:
        return self._embedder.name if self._embedder is not None else DEFAULT_EMBEDDER

    @property
    def concurrency(self) -> int:
        return self._concurrency

    def describe(self) -> dict[str, Any]:
        return {
            "provider": "offline",
            "model": self.name,
            "embedder": self._embedder_description(),
            "params_version": self.params.version,
            "params_fingerprint": self.params.fingerprint,
            "thresholds": {
                "t_support": self.params.t_support,
                "t_align": self.params.t_align,
                "t_chunk": self.params.t_chunk,
            },
            "split_clauses": self.split_clauses,
            "prompt_budget": dataclasses.asdict(self.prompt_budget),
        }

    def _embedder_description(self) -> dict[str, Any] | str:
        """The embedder's own description (the one it will make, if none yet: its
        precision depends on the machine), or its name where it cannot be made."""
        try:
            return self._model().describe()
        except JudgeFatalError:
            return DEFAULT_EMBEDDER

    async def aclose(self) -> None:
        if self._owns_embedder and self._embedder is not None:
            await self._embedder.aclose()

    # embeddings -------------------------------------------------------------------------

    def _model(self) -> Embedder:
        if self._embedder is None:
            from veracity.embeddings import LocalEmbedder

            try:
                self._embedder = LocalEmbedder()
            except MissingLocalModelError as exc:
                raise JudgeFatalError(f"the offline judge needs its local model: {exc}") from exc
        return self._embedder

    async def embed(self, texts: Sequence[str]) -> Matrix:
        """Embeddings of ``texts``; a model that cannot load stops the run."""
        try:
            return await self._model().embed(list(texts))
        except (MissingLocalModelError, ModelIntegrityError) as exc:
            raise JudgeFatalError(f"the offline judge's model cannot be used: {exc}") from exc

    # claims -----------------------------------------------------------------------------

    async def extract_claims(
        self, question: str, text: str, *, iteration: int, history: Sequence[Turn] = ()
    ) -> JudgeOutcome[tuple[str, ...]]:
        # Claims are the text's own sentences: no pronoun is resolved, with or without history.
        async def ask(_: tuple[str, ...]) -> JudgeOutcome[tuple[str, ...]]:
            started = time.perf_counter()
            found = await asyncio.to_thread(
                extract, text, split_clauses=self.split_clauses, question=question
            )
            return JudgeOutcome(
                value=found.claims, latency_s=time.perf_counter() - started, notes=found.notes()
            )

        return await within_budget(self.prompt_budget, (question, text), (), ask)

    async def claim_features(
        self, claims: Sequence[str], contexts: Sequence[str]
    ) -> tuple[ClaimFeatures, ...]:
        """Every claim's alignment features against ``contexts`` (raises on a model error)."""
        return await features_of(self.embed, claims, contexts)

    async def assess_claims(
        self, claims: Sequence[str], contexts: Sequence[str]
    ) -> tuple[Assessment, ...]:
        """Every claim's features, P(supported), verdict and reason (raises on a model error)."""
        read = [_Read.of(c, contexts) for c in claims]
        found = iter(await self.claim_features([p for r in read for p in r.parts], contexts))
        return tuple(
            r.joined([assess(p, next(found), self.params) for p in r.parts], contexts, self.params)
            for r in read
        )

    async def verify_claims(
        self,
        claims: Sequence[str],
        contexts: Sequence[str],
        *,
        iteration: int,
        batch: bool = True,
    ) -> JudgeOutcome[tuple[ClaimVerdict, ...]]:
        # ``batch`` changes nothing: every claim is judged on its own either way.
        async def ask(fitted: tuple[str, ...]) -> JudgeOutcome[tuple[ClaimVerdict, ...]]:
            started = time.perf_counter()
            try:
                assessed = await self.assess_claims(claims, fitted)
            except ModelOutputError as exc:
                return JudgeOutcome(
                    value=None, error=str(exc), latency_s=time.perf_counter() - started
                )
            return JudgeOutcome(
                value=tuple(a.to_verdict() for a in assessed),
                latency_s=time.perf_counter() - started,
            )

        return await within_budget(self.prompt_budget, claims, contexts, ask)

    # chunks and relevance ---------------------------------------------------------------

    async def judge_chunks(
        self,
        question: str,
        contexts: Sequence[str],
        reference: str | None,
        *,
        iteration: int,
        history: Sequence[Turn] = (),
    ) -> JudgeOutcome[tuple[ChunkJudgement, ...]]:
        read_as = question_in_context(question, history)
        notes = _read_as_notes(question, read_as)

        async def ask(fitted: tuple[str, ...]) -> JudgeOutcome[tuple[ChunkJudgement, ...]]:
            started = time.perf_counter()
            try:
                value = await judge_chunks(self.embed, read_as, fitted, reference, self.params)
            except ModelOutputError as exc:
                return JudgeOutcome(
                    value=None, error=str(exc), latency_s=time.perf_counter() - started
                )
            return JudgeOutcome(value=value, latency_s=time.perf_counter() - started, notes=notes)

        texts = (read_as, reference or "")
        return await within_budget(self.prompt_budget, texts, contexts, ask)

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
            error="the offline judge cannot write questions (it has no generative model)",
            unsupported=True,
        )

    async def rate_relevance(
        self, question: str, answer: str, *, iteration: int, history: Sequence[Turn] = ()
    ) -> JudgeOutcome[RelevanceRating]:
        earlier = earlier_turn(question, history)
        return await within_budget(
            self.prompt_budget,
            (question, earlier or "", answer),
            (),
            lambda _: self._rate(question, answer, earlier),
        )

    async def _rate(
        self, question: str, answer: str, earlier: str | None = None
    ) -> JudgeOutcome[RelevanceRating]:
        started = time.perf_counter()
        phrase = abstains(answer)
        if phrase is not None:
            rating = RelevanceRating(score=0.0, reason=f"the answer abstains ({phrase!r})")
            return JudgeOutcome(value=rating, latency_s=time.perf_counter() - started)
        try:
            vectors = await self.embed([answer, question, *([earlier] if earlier else [])])
        except ModelOutputError as exc:
            return JudgeOutcome(value=None, error=str(exc), latency_s=time.perf_counter() - started)
        asked = question_vector(vectors[1], vectors[2] if earlier else None)
        score = clipped_cosine(asked, vectors[0])
        read = " (a follow-up, read with the latest user turn)" if earlier else ""
        reason = (
            f"cosine similarity {score:.2f} between the question{read} and the answer "
            f"({self.embedder_name})"
        )
        if (await cut_texts(self._model(), [answer]))[0]:
            reason += "; the answer is longer than the model reads: only its start was compared"
        return JudgeOutcome(
            value=RelevanceRating(score=score, reason=reason),
            latency_s=time.perf_counter() - started,
        )

    async def classify_answer(
        self, question: str, answer: str, reference: str, *, iteration: int
    ) -> JudgeOutcome[Classification]:
        return await within_budget(
            self.prompt_budget,
            (question, answer, reference),
            (),
            lambda _: self._classify(question, answer, reference),
        )

    async def _classify(
        self, question: str, answer: str, reference: str
    ) -> JudgeOutcome[Classification]:
        started = time.perf_counter()
        agreed = agreeing_replies(question, answer, reference)
        if agreed is not None:
            why = "the answer's yes or no " + ("is" if agreed else "is not") + " the reference's"
            label = Classification(
                label=AnswerClass.CORRECT if agreed else AnswerClass.WRONG, reason=why
            )
            return JudgeOutcome(value=label, latency_s=time.perf_counter() - started)
        phrase = abstains(answer)
        found = await asyncio.to_thread(
            extract, answer, split_clauses=self.split_clauses, question=question
        )
        if phrase is not None or not found.claims:
            why = f"the answer abstains ({phrase!r})" if phrase else "the answer makes no claim"
            label = Classification(label=AnswerClass.DONT_KNOW, reason=why)
            return JudgeOutcome(value=label, latency_s=time.perf_counter() - started)
        try:
            assessed = await self.assess_claims(found.claims, [reference])
        except ModelOutputError as exc:
            return JudgeOutcome(value=None, error=str(exc), latency_s=time.perf_counter() - started)
        label = classify(assessed)
        return JudgeOutcome(
            value=label, latency_s=time.perf_counter() - started, notes=found.notes()
        )

    async def grade_factual_accuracy(
        self, question: str, answer: str, reference: str, *, iteration: int
    ) -> JudgeOutcome[FactualGrades]:
        what = "grade correctness, completeness and consistency"
        return JudgeOutcome(value=None, error=NEEDS_LLM.format(what=what), unsupported=True)

    async def score_rubric(
        self,
        rubric: Rubric,
        question: str,
        answer: str,
        contexts: Sequence[str],
        *,
        iteration: int,
    ) -> JudgeOutcome[tuple[DimensionScore, ...]]:
        what = f"score the rubric {rubric.name!r} on a 1–5 scale"
        return JudgeOutcome(value=None, error=NEEDS_LLM.format(what=what), unsupported=True)


@dataclass(frozen=True, slots=True)
class _Read:
    """A claim as it is checked: one statement or more (``parts``). A bare yes or no is
    its question, asked of each thing where it asks of two at once; a short reply is
    itself and its question; any other claim is itself."""

    claim: str
    parts: tuple[str, ...]
    polar: tuple[str, bool] | None
    short: tuple[str, str, str] | None

    @classmethod
    def of(cls, claim: str, contexts: Sequence[str]) -> _Read:
        polar, short = polar_parts(claim), short_reply_parts(claim)
        if polar is not None:
            parts = conjuncts(polar[0], contexts)
        elif short is not None:
            parts = (short[0], short[2])
        else:
            parts = (claim,)
        return cls(claim, parts, polar, short)

    def joined(
        self, assessed: Sequence[Assessment], contexts: Sequence[str], params: OfflineParams
    ) -> Assessment:
        """The claim's verdict from its parts'."""
        if self.polar is not None:
            asked, yes = self.polar
            return replied(self.claim, conjoined(asked, assessed), yes, params)
        if self.short is not None:
            named = self.short[1]
            return answering(self.claim, assessed[0], named, assessed[1], contexts, params)
        return assessed[0]


def _read_as_notes(question: str, read_as: str) -> tuple[str, ...]:
    if read_as == question:
        return ()
    shown = read_as if len(read_as) <= 200 else read_as[:199] + "…"
    return (f"the question is a follow-up: read after the latest user turn, as {shown!r}",)


if TYPE_CHECKING:
    from veracity.judges.base import Judge

    # mypy proves the offline judge satisfies the Judge protocol.
    _AS_JUDGE: Judge = OfflineJudge()
