"""Citation recall and precision, as ALCE defines them: do an answer's citations point at
the passages that support its claims?

No call of their own: the answer's claims and their verdicts are faithfulness' (shared,
asked once), and where each supported claim's support lies is where its verdict's
evidence is found among the contexts. A sentence that states something but that the judge
drew no claim from (one skipped), or only a claim restating it with another sentence (two
merged into one, which belongs to neither's citations: ``details["merged_claims"]``), is
verified in the same call, in its own words, and stands for itself. Each claim is then

- ``cited``: supported by a passage its sentence cites;
- ``misattributed``: supported, but only by a passage its sentence does not cite: right,
  and pointing the reader elsewhere — or nowhere, where its sentence cites nothing (ALCE
  counts both alike; details name those ``uncited`` too, and the reports say so);
- ``unsupported``: not supported, or supported on evidence that is in no context and in
  words no context holds.

A supported claim whose evidence quote is in no context (a small judge paraphrases its
quotes) is located by its own words instead (:mod:`~veracity.metrics.located`); details
say which claims were located so. A claim citing a passage that does not exist (``[7]`` of
three) names it in ``no_such_passage``, beside its other fields.

Recall is the share of claims that are ``cited``; precision the share of citations (a
sentence citing a passage) whose passage supports a claim of that sentence. An answer
that cites nothing is ``no_citations`` (unscored, counted).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from veracity.judges import JudgeOutcome
from veracity.metrics.base import Need, SampleWork, finished, has_contexts, judge_error, unscored
from veracity.metrics.cited_spans import CitedSpan, cited_spans, merged_spans, span_of
from veracity.metrics.located import locate
from veracity.types import Attribution, ClaimVerdict, MetricResult, Status, Usage, Verdict

__all__ = ["Citations"]

Measure = Literal["recall", "precision"]


def _attribution(
    verdict: ClaimVerdict, support: tuple[int, ...], cites: tuple[int, ...], together: bool
) -> Attribution:
    if verdict.verdict is not Verdict.SUPPORTED or not support:
        return Attribution.UNSUPPORTED
    return Attribution.CITED if _relevant(support, cites, together) else Attribution.MISATTRIBUTED


def _relevant(support: tuple[int, ...], cites: tuple[int, ...], together: bool) -> set[int]:
    """The citations of ``cites`` that support a claim located in ``support``, as ALCE
    counts them: one that supports it alone; or, where only passages together support it,
    each of them, once all are cited (removing any would leave it unsupported); none where
    some of them are not cited (the citations do not support it)."""
    if together:
        return set(support) if set(support) <= set(cites) else set()
    return set(support) & set(cites)


@dataclass(frozen=True, slots=True)
class Citations:
    """``citation_recall`` or ``citation_precision`` (``measure``). ``index_base`` is what
    the answer's citation numbers count from (1, or 0 where the data says so)."""

    measure: Measure = "recall"
    index_base: int = 1
    reads_as_probability: ClassVar[bool] = True
    measures_correctness: ClassVar[bool] = False

    @property
    def name(self) -> str:
        return f"citation_{self.measure}"

    @property
    def needs(self) -> frozenset[Need]:
        return frozenset({Need.ANSWER_CLAIMS, Need.VERDICTS, Need.CITED_SENTENCES})

    async def score(self, work: SampleWork) -> MetricResult:
        started = time.perf_counter()
        sample = work.sample
        spans, notes = cited_spans(sample, self.index_base)
        citations = [(n, i) for n, span in enumerate(spans) for i in span.cites]
        if not citations:
            return unscored(self.name, Status.NO_CITATIONS, "the answer cites no context", started)
        if not has_contexts(sample):
            why = "no contexts retrieved: nothing the answer cites exists"
            return self._result(0.0, Status.NO_CONTEXTS, why, {"notes": notes}, started)
        extracted = await work.claims()
        usage = work.charge(extracted)
        if extracted.value is None:
            return judge_error(self.name, "claim extraction", extracted, usage, started)
        if not extracted.value:
            why = "the answer makes no factual claim to attribute"
            return self._result(
                None, Status.NO_CLAIMS, why, {"notes": notes}, started, usage, (extracted,)
            )
        shared = await work.verdicts()
        usage += work.charge(shared)
        if shared.value is None:
            return judge_error(
                self.name, "claim verification", shared, usage, started, before=(extracted,)
            )
        unclaimed = await work.unclaimed_sentences()
        # Claims restating several sentences are left to them, each judged in its own words.
        merged = [claim for claim in extracted.value if merged_spans(claim, spans)]
        drawn = [claim for claim in extracted.value if claim not in merged]
        claims = self._claims(drawn, unclaimed, shared.value, spans, sample.contexts)
        supporting = {
            (claim["span"], i)
            for claim in claims
            if claim["span"] is not None and claim["verdict"] == Verdict.SUPPORTED.value
            for i in _relevant(
                claim["supported_by"], claim["cites"], claim["located_by"] == "together"
            )
        }
        precise = [(n, i) for n, i in citations if (n, i) in supporting]
        cited = [c for c in claims if c["attribution"] is Attribution.CITED]
        misattributed = [c for c in claims if c["attribution"] is Attribution.MISATTRIBUTED]
        details: dict[str, Any] = {
            "claims": [self._shown(c, len(sample.contexts)) for c in claims],
            "citations": len(citations),
            "supporting_citations": len(precise),
            "cited_claims": len(cited),
            "misattributed": [c["claim"] for c in misattributed],
            # Of those, the ones whose sentence cites nothing at all.
            "uncited": [c["claim"] for c in misattributed if not c["cites"]],
            "index_base": self.index_base,
        }
        if merged:
            details["merged_claims"] = merged
        if notes:
            details["notes"] = notes
        if self.measure == "recall":
            score = len(cited) / len(claims)
            why = f"{len(cited)} of {len(claims)} claim(s) cite a passage that supports them"
        else:
            score = len(precise) / len(citations)
            why = f"{len(precise)} of {len(citations)} citation(s) support a claim they are on"
        uncited = len(details["uncited"])
        if len(misattributed) > uncited:
            why += f"; {len(misattributed) - uncited} supported claim(s) cite another passage"
        if uncited:
            why += f"; {uncited} supported claim(s) cite nothing (uncited)"
        return self._result(score, Status.SCORED, why, details, started, usage, (extracted, shared))

    def _claims(
        self,
        claims: Sequence[str],
        unclaimed: Sequence[int],
        verdicts: dict[str, ClaimVerdict],
        spans: Sequence[CitedSpan],
        contexts: Sequence[str],
    ) -> list[dict[str, Any]]:
        """Each claim, then each sentence no claim was drawn from, attributed."""
        drawn = [(claim, span_of(claim, spans), False) for claim in claims]
        own = [(spans[n].text, n, True) for n in unclaimed]
        found = []
        for claim, span, sentence in drawn + own:
            verdict = verdicts[claim]
            cites = spans[span].cites if span is not None else ()
            support, located = locate(
                verdict,
                contexts,
                spans[span].text if span is not None else None,
                joint=True,
                prefer=cites,
            )
            found.append(
                {
                    "claim": claim,
                    "verdict": verdict.verdict.value,
                    "span": span,
                    "cites": cites,
                    "supported_by": support,
                    "located_by": located,
                    "attribution": _attribution(verdict, support, cites, located == "together"),
                    "sentence": sentence,
                }
            )
        return found

    def _shown(self, claim: dict[str, Any], contexts: int) -> dict[str, Any]:
        """A claim as details show it: context numbers as the answer writes them, and
        those it cites that are no context (``[7]`` of three) named beside it."""
        missing = [i + self.index_base for i in claim["cites"] if not 0 <= i < contexts]
        return {
            "claim": claim["claim"],
            "verdict": claim["verdict"],
            "attribution": claim["attribution"].value,
            "cites": [i + self.index_base for i in claim["cites"]],
            **({"no_such_passage": missing} if missing else {}),
            "supported_by": [i + self.index_base for i in claim["supported_by"]],
            **({"located_by": claim["located_by"]} if claim["located_by"] else {}),
            **(
                {"from": "the cited sentence: no claim was drawn from it"}
                if claim["sentence"]
                else {}
            ),
        }

    def _result(
        self,
        score: float | None,
        status: Status,
        reason: str,
        details: dict[str, Any],
        started: float,
        usage: Usage | None = None,
        judged: tuple[JudgeOutcome[Any], ...] = (),
    ) -> MetricResult:
        return finished(
            self.name, score, status, reason, started,
            details=details, usage=usage, judged=judged,
        )  # fmt: skip
