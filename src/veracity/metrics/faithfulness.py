"""Faithfulness: the share of an answer's claims that its retrieved contexts support."""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from veracity.judges import JudgeOutcome
from veracity.metrics.base import Need, SampleWork, finished, has_contexts, judge_error
from veracity.metrics.conversation_support import with_conversation_support
from veracity.metrics.local_signals import local_signals
from veracity.prompts import DEFAULT_ABSTENTION_PHRASES, abstains
from veracity.types import ClaimVerdict, MetricResult, Sample, Status, Usage, Verdict

_WORD = re.compile(r"\w+(?:'\w+)?")


def grounded_share(answer: str, claims: Sequence[str], weights: Sequence[float]) -> float:
    """The share of the answer's words that sit in supported claims: each claim counts its
    own words times its weight (1 if supported, else 0; or its P(supported)). Words in no
    claim (a question back to the user, a greeting) count as not grounded. A judge may
    reword a claim ("it" → the name), so the total is the larger of the answer's words and
    the claims' words."""
    sizes = [len(_WORD.findall(claim)) for claim in claims]
    total = max(len(_WORD.findall(answer)), sum(sizes))
    return sum(w * n for w, n in zip(weights, sizes, strict=True)) / total if total else 0.0


@dataclass(frozen=True, slots=True)
class Faithfulness:
    """Extract atomic claims (one call), judge them against the contexts (one batched call,
    or one call per claim with ``batch_verification=False``).

    The score is the expected share of supported claims: the mean of the claims'
    P(supported) when the judge gives one for every claim (the offline judge; an LLM judge
    whose endpoint returns token log-probabilities), else supported / claims.
    ``details["supported_share"]`` is always supported / claims; ``details["scored_by"]``
    says which the score is ("p_supported" or "verdicts").

    ``no_claims_score`` is what an answer with nothing to check (empty, a refusal) scores:
    1.0 (vacuously faithful) by default, or ``None`` to leave it unscored. An answer that
    only abstains or is courtesy ("I'm sorry, I don't have information about X", "The
    documents don't say", "You're welcome"; ``abstention_phrases``, see
    :func:`~veracity.prompts.abstains`) is ``no_claims`` without a judge call, with or
    without contexts, for every judge.

    ``details["grounded_share"]`` is the share of the answer's words inside supported
    claims (:func:`grounded_share`): unlike the score, it also counts what the answer says
    beyond its claims; with probabilities, ``details["expected_grounded_share"]`` weighs
    each claim's words by its P(supported). ``details["evidence_not_found"]`` counts the
    claims the judge called supported on an evidence quote that is not in the contexts (an
    LLM judge keeps them by default, or downgrades them to not_enough_info).

    ``details["local_signals"]`` is a second opinion that costs no call, for every judge
    (:mod:`~veracity.metrics.local_signals`): word overlap of the answer and of each claim,
    names and numbers of a claim that no context has, negation flips.
    ``details["unbacked_support"]`` counts the claims the judge called supported although
    a name or number of theirs is nowhere in the contexts, ``details["verbatim_not_supported"]``
    the claims it did not call supported although they stand word for word in a context,
    and ``details["overruled"]`` those an LLM judge called not_enough_info although a
    context has them as one of its sentences, word for word: those are supported, the
    judge's verdict kept in the claim's ``overruled``.
    ``details["supported_on_second_look"]`` counts the claims an LLM judge first called
    not_enough_info and then supported, asked again about the claim alone against the
    context(s) holding its words (the first verdict kept in the claim's ``first_look``).
    """

    batch_verification: bool = True
    no_claims_score: float | None = 1.0
    abstention_phrases: Sequence[str] = DEFAULT_ABSTENTION_PHRASES
    # Whether a claim the conversation supports (supported_by_conversation) counts as
    # supported in the score; the details count it either way.
    conversation_support_counts: bool = True
    name: str = "faithfulness"
    reads_as_probability: ClassVar[bool] = True
    measures_correctness: ClassVar[bool] = False

    @property
    def needs(self) -> frozenset[Need]:
        if self.batch_verification:
            return frozenset({Need.ANSWER_CLAIMS, Need.VERDICTS})
        return frozenset({Need.ANSWER_CLAIMS})

    async def score(self, work: SampleWork) -> MetricResult:
        started = time.perf_counter()
        sample = work.sample
        if not sample.answer.strip():
            return self._no_claims("the answer is empty", started, sample=sample)
        abstention = abstains(sample.answer, self.abstention_phrases)
        if abstention is not None:
            why = f"the answer abstains or is courtesy only ({abstention!r})"
            return self._no_claims(why, started, abstention=abstention, sample=sample)

        extracted = await work.claims()
        usage = work.charge(extracted)
        if extracted.value is None:
            return judge_error(self.name, "claim extraction", extracted, usage, started)
        claims = extracted.value
        if not claims:
            return self._no_claims(
                "the answer makes no factual claim", started, usage, sample=sample,
                judged=(extracted,),
            )  # fmt: skip

        if not has_contexts(sample):
            verdicts = tuple(
                ClaimVerdict(
                    claim=claim,
                    verdict=Verdict.NOT_ENOUGH_INFO,
                    reason="no contexts were retrieved for this question",
                )
                for claim in claims
            )
            return self._result(
                sample,
                verdicts,
                Status.NO_CONTEXTS,
                f"no contexts retrieved: none of {len(claims)} claim(s) can be supported",
                usage,
                started,
                extracted.notes,
                (extracted,),
            )

        if self.batch_verification:
            shared = await work.verdicts()
            usage += work.charge(shared)
            if shared.value is None:
                return judge_error(
                    self.name, "claim verification", shared, usage, started,
                    before=(extracted,), claims=list(claims),
                )  # fmt: skip
            verdicts = tuple(shared.value[claim] for claim in claims)
            notes = extracted.notes + shared.notes
            judged: tuple[JudgeOutcome[Any], ...] = (extracted, shared)
        else:
            verified = await work.judge.verify_claims(
                claims, sample.contexts, iteration=work.iteration, batch=False
            )
            usage += verified.usage
            if verified.value is None:
                return judge_error(
                    self.name, "claim verification", verified, usage, started,
                    before=(extracted,), claims=list(claims),
                )  # fmt: skip
            verdicts, notes = verified.value, extracted.notes + verified.notes
            judged = (extracted, verified)
        verdicts, checked = await with_conversation_support(work, verdicts)
        usage, notes, judged = usage + checked.usage, notes + checked.notes, (*judged, checked)
        counts = Counter(v.verdict for v in verdicts)
        reason = (
            f"{counts[Verdict.SUPPORTED]} of {len(claims)} claim(s) supported"
            f", {counts[Verdict.CONTRADICTED]} contradicted"
            f", {counts[Verdict.NOT_ENOUGH_INFO]} without enough information"
        )
        if counts[Verdict.SUPPORTED_BY_CONVERSATION]:
            counted = "counted as supported" if self.conversation_support_counts else "not counted"
            reason += (
                f", {counts[Verdict.SUPPORTED_BY_CONVERSATION]} supported by the conversation "
                f"({counted})"
            )
        return self._result(sample, verdicts, Status.SCORED, reason, usage, started, notes, judged)

    def _result(
        self,
        sample: Sample,
        verdicts: tuple[ClaimVerdict, ...],
        status: Status,
        reason: str,
        usage: Usage,
        started: float,
        notes: tuple[str, ...],
        judged: Sequence[JudgeOutcome[Any]],
    ) -> MetricResult:
        counts = Counter(v.verdict for v in verdicts)
        answer = sample.answer
        claims = [v.claim for v in verdicts]
        supported = [float(self._counts(v)) for v in verdicts]
        score = sum(supported) / len(verdicts)
        details: dict[str, Any] = {
            "claims": [v.model_dump(mode="json", exclude_none=True) for v in verdicts],
            "n_claims": len(verdicts),
            # The three-way counts, and the conversation's support where there is any.
            "counts": {
                v.value: counts[v]
                for v in Verdict
                if v is not Verdict.SUPPORTED_BY_CONVERSATION or counts[v]
            },
            "supported_share": round(score, 4),
            "grounded_share": round(grounded_share(answer, claims, supported), 4),
            "verification": "batched" if self.batch_verification else "per_claim",
            "scored_by": "verdicts",
        }
        if counts[Verdict.SUPPORTED_BY_CONVERSATION]:
            details["supported_by_conversation"] = counts[Verdict.SUPPORTED_BY_CONVERSATION]
        unfounded = sum(bool(v.evidence_not_found) for v in verdicts)
        if unfounded:
            details["evidence_not_found"] = unfounded
        signals, per_claim = local_signals(answer, claims, sample.contexts, sample.question)
        details["local_signals"] = signals
        unbacked = sum(
            v.verdict is Verdict.SUPPORTED and s.unbacked
            for v, s in zip(verdicts, per_claim, strict=True)
        )
        if unbacked:
            details["unbacked_support"] = unbacked
        overlooked = sum(
            v.verdict not in (Verdict.SUPPORTED, Verdict.SUPPORTED_BY_CONVERSATION) and s.verbatim
            for v, s in zip(verdicts, per_claim, strict=True)
        )
        if overlooked:
            details["verbatim_not_supported"] = overlooked
        overruled = sum(v.overruled is not None for v in verdicts)
        if overruled:
            details["overruled"] = overruled
        looked_again = sum(v.first_look is not None for v in verdicts)
        if looked_again:
            details["supported_on_second_look"] = looked_again
        if status is Status.SCORED and all(v.p_supported is not None for v in verdicts):
            probabilities = [self._p_counted(v) for v in verdicts]
            score = sum(probabilities) / len(probabilities)
            reason += f"; expected share supported {score:.2f}, from the judge's probabilities"
            details["scored_by"] = "p_supported"
            details["expected_grounded_share"] = round(
                grounded_share(answer, claims, probabilities), 4
            )
        if notes:
            details["notes"] = list(notes)
        return finished(
            self.name, score, status, reason, started, details=details, usage=usage, judged=judged
        )

    def _counts(self, verdict: ClaimVerdict) -> bool:
        """Whether ``verdict`` counts as supported in the score."""
        if verdict.verdict is Verdict.SUPPORTED_BY_CONVERSATION:
            return self.conversation_support_counts
        return verdict.verdict is Verdict.SUPPORTED

    def _p_counted(self, verdict: ClaimVerdict) -> float:
        """``verdict``'s P(supported) as the score counts it (0 for the conversation's
        support when that does not count)."""
        if verdict.verdict is Verdict.SUPPORTED_BY_CONVERSATION and not self._counts(verdict):
            return 0.0
        return float(verdict.p_supported or 0.0)

    def _no_claims(
        self,
        why: str,
        started: float,
        usage: Usage | None = None,
        abstention: str | None = None,
        *,
        sample: Sample,
        judged: Sequence[JudgeOutcome[Any]] = (),
    ) -> MetricResult:
        if self.no_claims_score is None:
            outcome = "it is left unscored"
        else:
            outcome = f"it scores {self.no_claims_score:g}"
        details: dict[str, Any] = {"claims": [], "n_claims": 0}
        if abstention is not None:
            details["abstention"] = abstention
        details["local_signals"] = local_signals(
            sample.answer, (), sample.contexts, sample.question
        )[0]
        why = f"{why}: there is nothing to check, so {outcome}"
        return finished(
            self.name, self.no_claims_score, Status.NO_CLAIMS, why, started,
            details=details, usage=usage, judged=judged,
        )  # fmt: skip
