"""Read the G-Eval criterion scores out of a factual-accuracy reply."""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import ValidationInfo, model_validator

from veracity.judges.parsing._coerce import Number, compact
from veracity.judges.parsing._criteria import WrittenScore, criteria_reading
from veracity.judges.parsing._text import preview
from veracity.judges.parsing.outcomes import ParseFailure
from veracity.judges.parsing.parsed import ParsedValue
from veracity.judges.parsing.probabilities import weighted_scores
from veracity.judges.parsing.reader import ReplyModel, describe_output, note
from veracity.prompts.factual_accuracy import FactualAccuracyOutput
from veracity.types import TokenLogprob
from veracity.types.judgements import CriterionScore, FactualGrades

__all__ = ["read_factual_reply"]

CRITERIA = ("correctness", "completeness", "consistency")
SYNONYMS = {
    "correctness": ("correctness", "accuracy", "factual_correctness", "factuality", "correct"),
    "completeness": ("completeness", "coverage", "complete"),
    "consistency": ("consistency", "coherence", "consistent", "internal_consistency"),
}
ALIASES = {compact(s): name for name, names in SYNONYMS.items() for s in names}
OVERALL = {compact(k) for k in ("overall", "overall_score", "total", "total_score", "score")}
OVERALL |= {compact(k) for k in ("final_score", "weighted_score", "final", "average", "grade")}
_TEN_SCALE = re.compile(r"/\s*10\b(?!\s*0)|\bout\s+of\s+10\b(?!\s*0)", re.IGNORECASE)


def _on_0_to_100(numbers: dict[str, Number], reasoning: str, notes: list[str]) -> dict[str, float]:
    """Scores on 0–100: an explicit ``x/y`` is converted; a 0–10 or 0–1 scale only when
    every score fits it and, for 0–10, the reasoning says "/10" or "out of 10"."""
    values = {n: v.value for n, v in numbers.items()}
    for name, number in numbers.items():
        if number.scale is not None and number.scale != 100:
            values[name] = number.value / number.scale * 100
            notes.append(f"{name}: read {number.text!r} as {round(values[name])}/100")
    bare = [n for n, v in numbers.items() if v.scale is None]
    if bare and all(0 <= values[n] <= 10 for n in bare) and _TEN_SCALE.search(reasoning):
        for name in bare:
            values[name] *= 10
        notes.append(f"the reasoning scores out of 10: multiplied {', '.join(bare)} by 10")
    elif (
        bare
        and all(0 <= values[n] <= 1 for n in bare)
        and any(not numbers[n].integral for n in bare)
    ):
        for name in bare:
            values[name] *= 100
        notes.append(f"the scores look like 0-1 fractions: multiplied {', '.join(bare)} by 100")
    elif len(bare) == len(CRITERIA) and all(0 <= values[n] <= 10 for n in bare):
        notes.append("every score is at most 10; taken as 0-100 (no sign of a 0-10 scale)")
    for name, value in values.items():
        if not 0 <= value <= 100:
            raise ValueError(f"the {name} score {numbers[name].text} is outside 0 to 100")
        if value != round(value):
            notes.append(f"{name}: rounded {value:g} to {round(value)}")
    return values


class _Grades(ReplyModel):
    correctness: WrittenScore
    completeness: WrittenScore
    consistency: WrittenScore

    def scores(self, notes: list[str]) -> dict[str, float]:
        written = {name: getattr(self, name) for name in CRITERIA}
        reasoning = " ".join(w.reasoning for w in written.values())
        return _on_0_to_100({n: w.score for n, w in written.items()}, reasoning, notes)

    @model_validator(mode="after")
    def _in_range(self, info: ValidationInfo) -> _Grades:
        notes: list[str] = []
        self.scores(notes)  # raises when a score is outside 0-100
        for said in notes:
            note(info, said)
        return self

    def grades(self) -> FactualGrades:
        values = self.scores([])
        return FactualGrades(
            **{
                name: CriterionScore(
                    score=round(values[name]), reasoning=getattr(self, name).reasoning
                )
                for name in CRITERIA
            }
        )


def _unknown(key: str) -> str:
    if compact(key) in OVERALL:
        return f"ignored the judge's {key!r}: veracity computes the weighted score"
    return f"ignored the unknown key {preview(key)}"


READING = criteria_reading(
    _Grades,
    lambda read: read.grades(),
    describe_output(FactualAccuracyOutput),
    CRITERIA,
    _unknown,
    aliases=ALIASES,
)


def read_factual_reply(text: str) -> ParsedValue[FactualGrades] | ParseFailure:
    """Read the correctness, completeness and consistency scores (0–100) and reasoning.

    Nested (``{"correctness": {"reasoning": …, "score": 80}}``), flat (``{"correctness":
    80, "correctness_reasoning": …}``), a list of ``{"criterion", "score", "reasoning"}``
    or ``Correctness: 80 - why`` lines; synonyms accuracy, coverage and coherence. Scores
    are 0–100 numbers or numeric strings; ``"8/10"`` is converted (noted), bare scores
    are multiplied by 10 only when all are at most 10 and the reasoning says "/10" or
    "out of 10" (noted). An ``overall`` is ignored (noted); a missing criterion is a
    ``"schema"`` failure naming it.
    """
    return READING(text)


def with_expected_criteria(
    grades: FactualGrades, text: str, tokens: Sequence[TokenLogprob]
) -> FactualGrades:
    """``grades`` read from ``text``, each criterion with its probability-weighted score
    where the reply's token log-probabilities give one (a score written as one token)."""
    names = ("correctness", "completeness", "consistency")
    written = [(name, getattr(grades, name).score) for name in names]
    expected = weighted_scores(text, tokens, written, 0, 100)
    return grades.model_copy(
        update={
            name: getattr(grades, name).model_copy(update={"expected": value})
            for name, value in zip(names, expected, strict=True)
            if value is not None
        }
    )
