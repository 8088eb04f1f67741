"""Predicting a run's judge calls and tokens before making any: ``veracity estimate``.

Each sample's calls are planned as the metrics would make them (shared work counted
once), the prompts rendered for real and measured with the usual rule of thumb of four
characters a token; replies are sized from what they must contain (claims are taken to
be the text's sentences). Re-asks and retries are not predicted.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from veracity.metrics import (
    COMPONENTS,
    AnswerClassification,
    AnswerRelevance,
    ContextPrecision,
    FactualAccuracy,
    Faithfulness,
    Metric,
    Need,
    RagasScore,
    RubricMetric,
)
from veracity.prompts import (
    ANSWER_CLASSIFICATION,
    CHUNK_RELEVANCE,
    CLAIM_EXTRACTION,
    CLAIM_VERIFICATION,
    FACTUAL_ACCURACY,
    QUESTION_GENERATION,
    RELEVANCE_RATING,
    RenderedPrompt,
    approx_tokens,
    find_abstention,
    render_chunk_relevance,
    render_classification,
    render_extraction,
    render_factual_accuracy,
    render_question_generation,
    render_relevance_rating,
    render_rubric,
    render_verification,
    rubric_template,
)
from veracity.types import Sample

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
# Reply sizes in characters for the free-text parts a judge writes.
REASON_CHARS = 90
REASONING_CHARS = 260


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


@dataclass(slots=True)
class Estimate:
    samples: int = 0
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    calls_by_prompt: Counter[str] = field(default_factory=Counter)

    def add(self, prompt: RenderedPrompt, reply: object) -> None:
        self.calls += 1
        self.input_tokens += sum(approx_tokens(m.content) for m in prompt.messages)
        self.output_tokens += approx_tokens(json.dumps(reply))
        self.calls_by_prompt[prompt.template_id] = (
            self.calls_by_prompt.get(prompt.template_id, 0) + 1
        )

    def merge(self, sample: Estimate, *, times: int) -> None:
        """Add one sample's estimate, ``times`` over (once per iteration)."""
        self.samples += 1
        self.calls += sample.calls * times
        self.input_tokens += sample.input_tokens * times
        self.output_tokens += sample.output_tokens * times
        for prompt, count in sample.calls_by_prompt.items():
            self.calls_by_prompt[prompt] += count * times


def _reason() -> str:
    return "x" * REASON_CHARS


def _has_contexts(sample: Sample) -> bool:
    return any(context.strip() for context in sample.contexts)


def _verdicts(claims: Sequence[str], evidence: str) -> dict[str, object]:
    return {
        "verdicts": [
            {"claim": c, "reason": _reason(), "evidence": evidence, "verdict": "supported"}
            for c in claims
        ]
    }


def _plan_claims(sample: Sample, needs: frozenset[Need], estimate: Estimate) -> None:
    """Extraction of answer claims and reference statements, and their one verification."""
    texts: list[str] = []
    wanted = [(Need.ANSWER_CLAIMS, sample.answer), (Need.REFERENCE_STATEMENTS, sample.reference)]
    for need, text in wanted:
        if need in needs and text and text.strip():
            claims = sentences(text)
            prompt = CLAIM_EXTRACTION.render(render_extraction(sample.question, text))
            estimate.add(prompt, {"claims": claims})
            texts += claims
    unique = list(dict.fromkeys(texts))
    if Need.VERDICTS in needs and unique and _has_contexts(sample):
        evidence = max(sentences(" ".join(sample.contexts)), key=len, default="")
        prompt = CLAIM_VERIFICATION.render(render_verification(unique, sample.contexts))
        estimate.add(prompt, _verdicts(unique, evidence))


def _plan_per_claim(sample: Sample, estimate: Estimate) -> None:
    """Faithfulness with one verification call per claim."""
    if sample.answer.strip() and _has_contexts(sample):
        for claim in sentences(sample.answer):
            prompt = CLAIM_VERIFICATION.render(render_verification([claim], sample.contexts))
            estimate.add(prompt, _verdicts([claim], ""))


def _plan_own_call(sample: Sample, metric: Metric, has_embedder: bool, estimate: Estimate) -> None:
    """The call a metric makes on its own, if its inputs are there."""
    q, a, ref, ctx = sample.question, sample.answer, sample.reference, sample.contexts
    if isinstance(metric, ContextPrecision) and _has_contexts(sample):
        chunks = [
            {"index": i, "reason": _reason(), "relevance": 50, "relevant": True}
            for i in range(len(ctx))
        ]
        estimate.add(
            CHUNK_RELEVANCE.render(render_chunk_relevance(q, ctx, ref)), {"chunks": chunks}
        )
    elif isinstance(metric, AnswerRelevance) and a.strip():
        if has_embedder:
            reply: dict[str, object] = {
                "reason": _reason(),
                "noncommittal": False,
                "questions": [q] * metric.n_questions,
            }
            estimate.add(QUESTION_GENERATION.render(render_question_generation(a, ctx)), reply)
        else:
            estimate.add(
                RELEVANCE_RATING.render(render_relevance_rating(q, a)),
                {"reason": _reason(), "score": 50},
            )
    elif isinstance(metric, FactualAccuracy) and ref:
        part = {"reasoning": "x" * REASONING_CHARS, "score": 50}
        estimate.add(
            FACTUAL_ACCURACY.render(render_factual_accuracy(q, a, ref)),
            dict.fromkeys(("correctness", "completeness", "consistency"), part),
        )
    elif isinstance(metric, AnswerClassification) and ref and a.strip() and not find_abstention(a):
        estimate.add(
            ANSWER_CLASSIFICATION.render(render_classification(q, a, ref)),
            {"reason": _reason(), "classification": "correct"},
        )
    elif isinstance(metric, RubricMetric):
        scores = [
            {"dimension": d.name, "reasoning": "x" * REASONING_CHARS, "score": 3}
            for d in metric.rubric.dimensions
        ]
        estimate.add(
            rubric_template(metric.rubric).render(render_rubric(q, a, ctx)), {"scores": scores}
        )


def estimate_run(
    samples: Iterable[Sample],
    metrics: Sequence[Metric],
    *,
    iterations: int = 1,
    has_embedder: bool = True,
) -> Estimate:
    """The judge calls and tokens a run of ``metrics`` over ``samples`` would make."""
    names = {m.name for m in metrics}
    expanded = [m for m in metrics if not isinstance(m, RagasScore)]
    if any(isinstance(m, RagasScore) for m in metrics):
        expanded += [make() for name, make in COMPONENTS.items() if name not in names]
    needs = frozenset[Need]().union(*(m.needs for m in expanded))
    per_claim = any(isinstance(m, Faithfulness) and not m.batch_verification for m in expanded)
    total = Estimate()
    for sample in samples:
        once = Estimate()
        _plan_claims(sample, needs, once)
        if per_claim:
            _plan_per_claim(sample, once)
        for metric in expanded:
            _plan_own_call(sample, metric, has_embedder, once)
        total.merge(once, times=iterations)
    return total
