"""The decision judge's questions as it asks them, and what their answers become.

Each reader turns answers into the judge's value types, or a refusal into the reason there
is none: a refused question is never a verdict.
"""

from __future__ import annotations

from collections.abc import Sequence

from veracity.decisions.base import Answer, Option
from veracity.judges.decision.grouping import Asked
from veracity.prompts.decisions import (
    ANSWER_CLASS,
    CHUNK_USEFUL,
    CLAIM_SUPPORT,
    FACTUAL_CRITERIA,
    FACTUAL_LEVELS,
    RELEVANCE_LEVEL,
    DecisionTemplate,
    chunk_instructions,
    claim_instructions,
)
from veracity.types import (
    AnswerClass,
    ChunkJudgement,
    ClaimVerdict,
    Classification,
    CriterionScore,
    DimensionScore,
    FactualGrades,
    RelevanceRating,
    Verdict,
)

__all__ = [
    "Refused",
    "chunk_questions",
    "claim_questions",
    "factual_questions",
    "read_chunks",
    "read_classification",
    "read_factual",
    "read_relevance",
    "read_rubric",
    "read_verdicts",
    "template_question",
]

BY = "(decision model)"


class Refused(Exception):
    """A question the model refused: the outcome is an error naming it, never a verdict."""


def template_question(template: DecisionTemplate, instructions: str | None = None) -> Asked:
    return Asked(
        template=template.id,
        kind=template.kind,
        instructions=template.instructions if instructions is None else instructions,
        options=tuple(Option(value, description) for value, description in template.options),
    )


def claim_questions(claims: Sequence[str]) -> tuple[Asked, ...]:
    return tuple(template_question(CLAIM_SUPPORT, claim_instructions(c)) for c in claims)


def chunk_questions(question: str, chunks: int, reference: str | None) -> tuple[Asked, ...]:
    return tuple(
        template_question(CHUNK_USEFUL, chunk_instructions(k, question, reference))
        for k in range(1, chunks + 1)
    )


def _checked(answer: Answer, what: str, values: Sequence[str] = ()) -> Answer:
    """``answer`` when it answers with probabilities over ``values`` (where given)."""
    if answer.refused:
        raise Refused(f"the decision model refused {what}: {answer.refusal}")
    if not answer.probabilities:
        raise Refused(f"the decision model gave no probabilities for {what}")
    unknown = {value for value, _ in answer.probabilities} - set(values)
    if values and unknown:
        raise Refused(
            f"the decision model answered {what} with unknown option(s) {sorted(unknown)}"
        )
    return answer


def _shown(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def read_verdicts(claims: Sequence[str], answers: Sequence[Answer]) -> tuple[ClaimVerdict, ...]:
    """Each claim's verdict: the most likely option, P(supported) and all three kept."""
    verdicts = []
    for claim, answer in zip(claims, answers, strict=True):
        _checked(answer, f"the claim {_shown(claim)}", CLAIM_SUPPORT.values)
        probabilities = {value: answer.probability(value) for value in CLAIM_SUPPORT.values}
        p_supported = probabilities[Verdict.SUPPORTED.value]
        verdicts.append(
            ClaimVerdict(
                claim=claim,
                verdict=Verdict(answer.most_likely()),
                reason=_three_way(probabilities),
                p_supported=p_supported,
                probabilities=probabilities,
            )
        )
    return tuple(verdicts)


def _three_way(probabilities: dict[str, float]) -> str:
    """A claim's reason: all three probabilities, so a contradiction reads apart from a
    claim the passages only leave open."""
    shown = " · ".join(f"{value.replace('_', ' ')} {p:.2f}" for value, p in probabilities.items())
    return f"P: {shown} {BY}"


def read_chunks(answers: Sequence[Answer]) -> tuple[ChunkJudgement, ...]:
    """Each chunk relevant when P(useful) ≥ 0.5; its relevance that probability × 100."""
    judged = []
    for index, answer in enumerate(answers):
        p = _checked(answer, f"passage [{index + 1}]").probability("true")
        judged.append(
            ChunkJudgement(
                index=index,
                relevant=p >= 0.5,
                relevance=round(100 * p),
                reason=f"P(useful) {p:.2f} {BY}",
                p_relevant=p,
            )
        )
    return tuple(judged)


def _levels(answer: Answer) -> tuple[int, float]:
    """A score answer's most likely level index and its probability-weighted one."""
    values = [value for value, _ in answer.probabilities]
    return values.index(answer.most_likely()), answer.expected_level()


def read_relevance(answer: Answer) -> RelevanceRating:
    """The most likely level and the expected one, both on 0–1."""
    _checked(answer, "the relevance question")
    top = len(RELEVANCE_LEVEL.options) - 1
    likely, expected = _levels(answer)
    return RelevanceRating(
        score=likely / top,
        expected=min(1.0, expected / top),
        reason=f"expected level {expected:.2f} of 0–{top} {BY}",
        probabilities=dict(answer.probabilities),
    )


def read_classification(answer: Answer) -> Classification:
    _checked(answer, "the classification question", ANSWER_CLASS.values)
    probabilities = {AnswerClass(value): answer.probability(value) for value in ANSWER_CLASS.values}
    label = AnswerClass(answer.most_likely())
    return Classification(
        label=label,
        reason=f"P({label.value}) {probabilities[label]:.2f} {BY}",
        probabilities=probabilities,
    )


def factual_questions() -> tuple[Asked, ...]:
    return tuple(template_question(t) for t in FACTUAL_CRITERIA.values())


def read_factual(answers: Sequence[Answer]) -> FactualGrades:
    """Each criterion's expected score on 0–100 (its levels stand for 0, 25, … 100), and
    that rounded as its score."""
    scores = {}
    for name, answer in zip(FACTUAL_CRITERIA, answers, strict=True):
        _checked(answer, f"the {name} question")
        expected = sum(FACTUAL_LEVELS[i] * p for i, (_, p) in enumerate(answer.probabilities))
        expected = min(100.0, max(0.0, expected))
        scores[name] = CriterionScore(
            score=round(expected),
            expected=expected,
            reasoning=f"expected {expected:.1f} {BY}",
            probabilities=dict(answer.probabilities),
        )
    return FactualGrades(**scores)


def read_rubric(names: Sequence[str], answers: Sequence[Answer]) -> tuple[DimensionScore, ...]:
    """Each dimension's most likely level as its score (pass or fail is read from it, as
    from a written score) and the probability-weighted level as its expected score."""
    scores = []
    for name, answer in zip(names, answers, strict=True):
        _checked(answer, f"the rubric dimension {name!r}")
        likely, expected = _levels(answer)
        level = likely + 1
        scores.append(
            DimensionScore(
                name=name,
                score=level,
                expected=min(5.0, expected + 1),
                reasoning=f"P({level}) {answer.probability(answer.most_likely()):.2f}, "
                f"expected {expected + 1:.2f} {BY}",
                probabilities=dict(answer.probabilities),
            )
        )
    return tuple(scores)
