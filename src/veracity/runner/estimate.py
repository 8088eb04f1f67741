"""Predicting a run's judge calls and tokens before making any: ``veracity estimate``.

Each sample's calls are planned as the metrics would make them (shared work counted
once), the prompts rendered for real and measured with the usual rule of thumb of four
characters a token; replies are sized from what they must contain (claims are taken to
be the text's sentences). A question over the prompt budget is counted as not sent (its
contexts cut to fit when the budget allows it), as the judge would do. Re-asks and retries
are not predicted; faithfulness' check of a conversation's turns is counted for every
sample with history (an upper bound: it is asked only when a claim is left open).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from veracity.metrics import (
    COMPONENTS,
    AnswerClassification,
    AnswerRelevance,
    Citations,
    ContextPrecision,
    FactualAccuracy,
    Faithfulness,
    Metric,
    Need,
    RagasScore,
    RubricMetric,
)
from veracity.metrics.cited_spans import cited_spans
from veracity.prompts import (
    ANSWER_CLASSIFICATION,
    CHUNK_RELEVANCE,
    CLAIM_EXTRACTION,
    CLAIM_VERIFICATION,
    FACTUAL_ACCURACY,
    QUESTION_GENERATION,
    RELEVANCE_RATING,
    PromptBudget,
    PromptTemplate,
    PromptTooLarge,
    RenderedPrompt,
    abstains,
    approx_tokens,
    history_size,
    in_conversation,
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
from veracity.types import Sample, Turn

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
# Reply sizes in characters for the free-text parts a judge writes.
REASON_CHARS = 90
REASONING_CHARS = 260


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


Render = Callable[[tuple[str, ...]], RenderedPrompt]


@dataclass(slots=True)
class Estimate:
    samples: int = 0
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    calls_by_prompt: Counter[str] = field(default_factory=Counter)
    # Questions whose input is over the prompt budget: never sent, invalid_input.
    over_budget: int = 0
    budget: PromptBudget = field(default_factory=PromptBudget)

    def ask(
        self,
        template: PromptTemplate,
        texts: Sequence[str],
        contexts: Sequence[str],
        render: Render,
        reply: object,
        history: Sequence[Turn] = (),
    ) -> bool:
        """One question, as the judge would ask it: checked against the budget before its
        prompt is rendered (with its contexts as they fit, and the conversation before the
        question, if any). ``render`` is called here and now, so it may use the caller's
        loop variables. Whether it was sent."""
        turns, shown = history_size(template, history)
        try:
            fitted = self.budget.fit(
                (*texts, *turns), contexts, fixed_chars=template.fixed_chars + shown
            )
        except PromptTooLarge:
            self.over_budget += 1
            return False
        self.add(in_conversation(render(fitted.contexts), history), reply)
        return True

    def add(self, prompt: RenderedPrompt, reply: object) -> None:
        self.calls += 1
        self.input_tokens += sum(approx_tokens(m.content) for m in prompt.messages)
        self.output_tokens += approx_tokens(json.dumps(reply))
        self.calls_by_prompt[prompt.template_id] += 1

    def merge(self, sample: Estimate, *, times: int) -> None:
        """Add one sample's estimate, ``times`` over (once per iteration)."""
        self.samples += 1
        self.calls += sample.calls * times
        self.input_tokens += sample.input_tokens * times
        self.output_tokens += sample.output_tokens * times
        self.over_budget += sample.over_budget * times
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


def _plan_claims(sample: Sample, needs: frozenset[Need], estimate: Estimate) -> bool:
    """Extraction of answer claims and reference statements, and their one verification;
    whether the answer's claims were asked for."""
    texts, answered = plan_extractions(sample, needs, estimate)
    unique = list(dict.fromkeys(texts))
    if Need.VERDICTS in needs and unique and _has_contexts(sample):
        evidence = max(sentences(" ".join(sample.contexts)), key=len, default="")
        estimate.ask(
            CLAIM_VERIFICATION,
            unique,
            sample.contexts,
            lambda fitted: CLAIM_VERIFICATION.render(render_verification(unique, fitted)),
            _verdicts(unique, evidence),
        )
    return answered


def plan_extractions(
    sample: Sample, needs: frozenset[Need], estimate: Estimate
) -> tuple[list[str], bool]:
    """The extraction calls of answer claims and reference statements: the claims they
    would give (the texts' sentences), and whether the answer's claims were asked for."""
    texts: list[str] = []
    answered = False
    wanted = [(Need.ANSWER_CLAIMS, sample.answer), (Need.REFERENCE_STATEMENTS, sample.reference)]
    for need, text in wanted:
        # An answer that only abstains is no_claims before any call (Faithfulness).
        if need is Need.ANSWER_CLAIMS and text and abstains(text):
            continue
        if need in needs and text and text.strip():
            claims = sentences(text)
            sent = estimate.ask(
                CLAIM_EXTRACTION,
                (sample.question, text),
                (),
                lambda _: CLAIM_EXTRACTION.render(render_extraction(sample.question, text)),  # noqa: B023 (called at once)
                {"claims": claims},
                sample.history,
            )
            if sent:  # claims never extracted are never verified
                texts += claims
                answered = answered or need is Need.ANSWER_CLAIMS
    return texts, answered


def _plan_conversation_check(sample: Sample, estimate: Estimate) -> None:
    """Faithfulness' second look, against the conversation's turns, at the claims the
    contexts leave open: counted as if every claim were left open (an upper bound: the
    call is made only when one is)."""
    turns = [t.content for t in sample.history if t.role in (None, "user", "assistant")]
    claims = sentences(sample.answer)
    if turns and claims and _has_contexts(sample) and not abstains(sample.answer):
        estimate.ask(
            CLAIM_VERIFICATION,
            claims,
            turns,
            lambda fitted: CLAIM_VERIFICATION.render(render_verification(claims, fitted)),
            _verdicts(claims, turns[0]),
        )


def _cites(sample: Sample, metric: Citations) -> bool:
    return any(span.cites for span in cited_spans(sample, metric.index_base)[0])


def _plan_per_claim(sample: Sample, estimate: Estimate) -> None:
    """Faithfulness with one verification call per claim."""
    if sample.answer.strip() and _has_contexts(sample):
        for claim in sentences(sample.answer):
            estimate.ask(
                CLAIM_VERIFICATION,
                (claim,),
                sample.contexts,
                lambda fitted: CLAIM_VERIFICATION.render(render_verification([claim], fitted)),  # noqa: B023 (called at once)
                _verdicts([claim], ""),
            )


def _plan_own_call(sample: Sample, metric: Metric, has_embedder: bool, estimate: Estimate) -> None:
    """The call a metric makes on its own, if its inputs are there."""
    q, a, ref, ctx = sample.question, sample.answer, sample.reference, sample.contexts
    if isinstance(metric, ContextPrecision) and _has_contexts(sample):
        chunks = [
            {"index": i, "reason": _reason(), "relevance": 50, "relevant": True}
            for i in range(len(ctx))
        ]
        estimate.ask(
            CHUNK_RELEVANCE,
            (q, ref or ""),
            ctx,
            lambda fitted: CHUNK_RELEVANCE.render(render_chunk_relevance(q, fitted, ref)),
            {"chunks": chunks},
            sample.history,
        )
    elif isinstance(metric, AnswerRelevance) and a.strip():
        if has_embedder:
            reply: dict[str, object] = {
                "reason": _reason(),
                "noncommittal": False,
                "questions": [q] * metric.n_questions,
            }
            estimate.ask(
                QUESTION_GENERATION,
                (a,),
                ctx,
                lambda fitted: QUESTION_GENERATION.render(render_question_generation(a, fitted)),
                reply,
                sample.history,
            )
        else:
            estimate.ask(
                RELEVANCE_RATING,
                (q, a),
                (),
                lambda _: RELEVANCE_RATING.render(render_relevance_rating(q, a)),
                {"reason": _reason(), "score": 50},
                sample.history,
            )
    elif isinstance(metric, FactualAccuracy) and ref:
        part = {"reasoning": "x" * REASONING_CHARS, "score": 50}
        estimate.ask(
            FACTUAL_ACCURACY,
            (q, a, ref),
            (),
            lambda _: FACTUAL_ACCURACY.render(render_factual_accuracy(q, a, ref)),
            dict.fromkeys(("correctness", "completeness", "consistency"), part),
        )
    elif (
        isinstance(metric, AnswerClassification)
        and ref
        and a.strip()
        and not abstains(a, metric.abstention_phrases)
    ):
        estimate.ask(
            ANSWER_CLASSIFICATION,
            (q, a, ref),
            (),
            lambda _: ANSWER_CLASSIFICATION.render(render_classification(q, a, ref)),
            {"reason": _reason(), "classification": "correct"},
        )
    elif isinstance(metric, RubricMetric):
        scores = [
            {"dimension": d.name, "reasoning": "x" * REASONING_CHARS, "score": 3}
            for d in metric.rubric.dimensions
        ]
        template = rubric_template(metric.rubric)
        estimate.ask(
            template,
            (q, a),
            ctx,
            lambda fitted: template.render(render_rubric(q, a, fitted)),
            {"scores": scores},
        )


def _needs(sample: Sample, metrics: Sequence[Metric]) -> frozenset[Need]:
    """What ``metrics`` need of ``sample``: a citation metric asks nothing of an answer
    that cites nothing."""
    return frozenset[Need]().union(
        *(m.needs for m in metrics if not isinstance(m, Citations) or _cites(sample, m))
    )


def _expanded(metrics: Sequence[Metric]) -> list[Metric]:
    """``metrics`` with a composite's components in its place."""
    names = {m.name for m in metrics}
    expanded = [m for m in metrics if not isinstance(m, RagasScore)]
    if any(isinstance(m, RagasScore) for m in metrics):
        expanded += [make() for name, make in COMPONENTS.items() if name not in names]
    return expanded


def estimate_extractions(
    samples: Iterable[Sample],
    metrics: Sequence[Metric],
    *,
    iterations: int = 1,
    budget: PromptBudget | None = None,
) -> Estimate:
    """The claim extraction calls alone of a run of ``metrics``: what a chat judge drawing
    a decision judge's claims would make."""
    budget = budget or PromptBudget()
    expanded = _expanded(metrics)
    total = Estimate(budget=budget)
    for sample in samples:
        once = Estimate(budget=budget)
        plan_extractions(sample, _needs(sample, expanded), once)
        total.merge(once, times=iterations)
    return total


def estimate_run(
    samples: Iterable[Sample],
    metrics: Sequence[Metric],
    *,
    iterations: int = 1,
    has_embedder: bool = True,
    budget: PromptBudget | None = None,
) -> Estimate:
    """The judge calls and tokens a run of ``metrics`` over ``samples`` would make, with
    ``budget`` (the default one if ``None``) as the judge's prompt budget."""
    budget = budget or PromptBudget()
    expanded = _expanded(metrics)
    per_claim = any(isinstance(m, Faithfulness) and not m.batch_verification for m in expanded)
    faithfulness = any(isinstance(m, Faithfulness) for m in expanded)
    total = Estimate(budget=budget)
    for sample in samples:
        once = Estimate(budget=budget)
        needs = _needs(sample, expanded)
        answered = _plan_claims(sample, needs, once)
        if per_claim:
            _plan_per_claim(sample, once)
        if faithfulness and answered:
            _plan_conversation_check(sample, once)
        for metric in expanded:
            _plan_own_call(sample, metric, has_embedder, once)
        total.merge(once, times=iterations)
    return total
