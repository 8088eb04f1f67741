"""What a metric is, the models it may use, and the per-sample work metrics share."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from veracity.judges import Judge, JudgeOutcome
from veracity.metrics.cited_spans import cited_spans, unclaimed, without_markers
from veracity.types import ClaimVerdict, MetricResult, Sample, Status, Usage

if TYPE_CHECKING:
    from veracity.embeddings import BertScoring, Embedder


class Need(StrEnum):
    """What a metric reads beyond the judge: shared judge work (planned so it takes as few
    calls as possible) and the local or remote models a run must provide."""

    ANSWER_CLAIMS = "answer_claims"
    REFERENCE_STATEMENTS = "reference_statements"
    VERDICTS = "verdicts"
    CITED_SENTENCES = "cited_sentences"  # verified with the claims: see cited_spans.unclaimed
    EMBEDDER = "embedder"
    BERT_SCORER = "bert_scorer"


@dataclass(frozen=True)
class Models:
    """Everything metrics may ask: the judge, and local or remote embedding models."""

    judge: Judge
    embedder: Embedder | None = None
    bert_scorer: BertScoring | None = None

    async def aclose(self) -> None:
        """Close every model: connections belong to the event loop they were made on, and
        each model opens new ones if used again."""
        for model in (self.judge, self.embedder, self.bert_scorer):
            if model is not None:
                await model.aclose()


class Metric(Protocol):
    """A metric scores one sample. It is stateless: all it needs is in ``work``."""

    #: Whether its score reads as a probability that the answer is good (a share of
    #: supported claims or attributable statements, a correct/wrong verdict): agreement
    #: with people computes the Brier score and calibration error for these only.
    reads_as_probability: ClassVar[bool]
    #: Whether it scores the answer against a reference: people's ``correctness`` label
    #: measures it.
    measures_correctness: ClassVar[bool]

    @property
    def name(self) -> str: ...

    @property
    def needs(self) -> frozenset[Need]:
        """The shared work it reads, so that work is done in as few calls as possible."""
        ...

    async def score(self, work: SampleWork) -> MetricResult: ...


class SampleWork:
    """Judge answers about one sample in one iteration, computed once and shared.

    Answer claims and reference statements are each extracted once, and when the metrics
    of the run need verdicts for both, one batched call verifies them together (a text
    that is both an answer claim and a reference statement is verified once). The usage
    of shared work is charged to the first result that uses it, so totals add up.
    """

    def __init__(
        self,
        sample: Sample,
        models: Models,
        iteration: int,
        metrics: Mapping[str, Metric] | None = None,
    ) -> None:
        self.sample = sample
        self.models = models
        self.iteration = iteration
        self.metrics = dict(metrics or {})
        self.needs: frozenset[Need] = frozenset().union(*(m.needs for m in self.metrics.values()))
        self._tasks: dict[str, asyncio.Task[Any]] = {}
        self._charged: set[int] = set()

    @property
    def judge(self) -> Judge:
        return self.models.judge

    def _once(self, key: str, make: Callable[[], Any]) -> asyncio.Task[Any]:
        if key not in self._tasks:
            self._tasks[key] = asyncio.ensure_future(make())
        return self._tasks[key]

    async def claims(self) -> JudgeOutcome[tuple[str, ...]]:
        """The answer's atomic claims, drawn from it without its citation markers (``[2]``
        is where a claim comes from, not part of what it says)."""
        sample = self.sample
        answer = without_markers(sample.answer)
        outcome: JudgeOutcome[tuple[str, ...]] = await self._once(
            "claims",
            lambda: self.judge.extract_claims(
                sample.question, answer, iteration=self.iteration, history=sample.history
            ),
        )
        return outcome

    async def unclaimed_sentences(self) -> tuple[int, ...]:
        """In an answer that cites, the sentences (spans of :func:`cited_spans`) that state
        something yet no claim was drawn from; verified with the claims, in their own words."""

        async def find() -> tuple[int, ...]:
            spans, _ = cited_spans(self.sample)
            return tuple(unclaimed(spans, (await self.claims()).value or ()))

        found: tuple[int, ...] = await self._once("unclaimed", find)
        return found

    async def statements(self) -> JudgeOutcome[tuple[str, ...]]:
        """The reference answer's statements (the caller checks there is a reference)."""
        sample = self.sample
        outcome: JudgeOutcome[tuple[str, ...]] = await self._once(
            "statements",
            lambda: self.judge.extract_claims(
                sample.question,
                sample.reference or "",
                iteration=self.iteration,
                history=sample.history,
            ),
        )
        return outcome

    async def verdicts(self) -> JudgeOutcome[dict[str, ClaimVerdict]]:
        """Verdicts against the contexts for every claim and statement the run needs,
        keyed by text, from one batched call (none when there is nothing to verify)."""
        outcome: JudgeOutcome[dict[str, ClaimVerdict]] = await self._once(
            "verdicts", self._verify_all
        )
        return outcome

    async def _verify_all(self) -> JudgeOutcome[dict[str, ClaimVerdict]]:
        wanted = []
        if Need.ANSWER_CLAIMS in self.needs and self.sample.answer.strip():
            wanted.append(self.claims())
        if Need.REFERENCE_STATEMENTS in self.needs and (self.sample.reference or "").strip():
            wanted.append(self.statements())
        texts: dict[str, None] = {}
        for extracted in await asyncio.gather(*wanted):
            texts.update(dict.fromkeys(extracted.value or ()))
        if Need.CITED_SENTENCES in self.needs and wanted:
            spans, _ = cited_spans(self.sample)
            texts.update(dict.fromkeys(spans[n].text for n in await self.unclaimed_sentences()))
        if not texts:
            return JudgeOutcome(value={})
        verified = await self.judge.verify_claims(
            list(texts), self.sample.contexts, iteration=self.iteration
        )
        if verified.value is None:
            return JudgeOutcome(
                value=None,
                error=verified.error,
                usage=verified.usage,
                latency_s=verified.latency_s,
                raw_replies=verified.raw_replies,
                notes=verified.notes,
                unsupported=verified.unsupported,
                invalid_input=verified.invalid_input,
                readings=verified.readings,
            )
        return JudgeOutcome(
            value={verdict.claim: verdict for verdict in verified.value},
            usage=verified.usage,
            latency_s=verified.latency_s,
            notes=verified.notes,
            readings=verified.readings,
        )

    async def result_of(self, name: str, default: Callable[[], Metric]) -> MetricResult:
        """The result of metric ``name`` for this sample, computed once: the run's own
        instance if the run scores it, else ``default()``."""
        metric = self.metrics.get(name) or default()
        result: MetricResult = await self._once(f"metric:{name}", lambda: metric.score(self))
        return result

    def charge(self, outcome: JudgeOutcome[Any]) -> Usage:
        """The usage of ``outcome`` the first time it is charged, nothing after."""
        if id(outcome) in self._charged:
            return Usage()
        self._charged.add(id(outcome))
        return outcome.usage


def readings(outcomes: Sequence[JudgeOutcome[Any]]) -> dict[str, list[str]]:
    """How the judge's replies behind ``outcomes`` were read: by question, the path of each
    reply in order (see :attr:`~veracity.judges.JudgeOutcome.readings`)."""
    found: dict[str, list[str]] = {}
    for outcome in outcomes:
        for question, path in outcome.readings:
            found.setdefault(question, []).append(path)
    return found


def finished(
    metric: str,
    score: float | None,
    status: Status,
    reason: str,
    started: float,
    *,
    details: dict[str, Any] | None = None,
    usage: Usage | None = None,
    judged: Sequence[JudgeOutcome[Any]] = (),
) -> MetricResult:
    """A metric's result, its latency counted from ``started`` (``time.perf_counter()``);
    ``details["reading"]`` says how the replies of the ``judged`` outcomes were read."""
    details = dict(details or {})
    read = readings(judged)
    if read:
        details["reading"] = read
    return MetricResult(
        metric=metric,
        score=score,
        status=status,
        reason=reason,
        details=details,
        usage=usage or Usage(),
        latency_s=time.perf_counter() - started,
    )


def judge_error(
    metric: str,
    step: str,
    outcome: JudgeOutcome[Any],
    usage: Usage,
    started: float,
    *,
    before: Sequence[JudgeOutcome[Any]] = (),
    **details: Any,
) -> MetricResult:
    """The result when the judge failed at ``step`` (or could not be asked: the judge does
    not do it, the input is over the prompt budget): no score, the reason, the raw replies;
    ``before`` are the outcomes of the steps before it, for ``details["reading"]``."""
    details["raw_replies"] = list(outcome.raw_replies)
    if outcome.notes:
        details["notes"] = list(outcome.notes)
    if outcome.unsupported:
        status, reason = Status.UNSUPPORTED_BY_JUDGE, f"{step}: {outcome.error}"
    elif outcome.invalid_input:
        status, reason = Status.INVALID_INPUT, f"{step}: {outcome.error}"
    else:
        status, reason = Status.JUDGE_ERROR, f"{step} failed: {outcome.error}"
    return finished(
        metric, None, status, reason, started,
        details=details, usage=usage, judged=(*before, outcome),
    )  # fmt: skip


def unscored(
    metric: str, status: Status, reason: str, started: float, **details: Any
) -> MetricResult:
    """A result without a judge call (missing reference, no contexts, …)."""
    return finished(metric, None, status, reason, started, details=details)


def has_contexts(sample: Sample) -> bool:
    return any(context.strip() for context in sample.contexts)


def has_reference(sample: Sample) -> bool:
    return bool(sample.reference and sample.reference.strip())


def missing_reference(metric: str, started: float) -> MetricResult:
    return unscored(metric, Status.MISSING_REFERENCE, "the sample has no reference answer", started)
