"""The prompt behind factual_accuracy: G-Eval style criterion scores against a reference."""

from __future__ import annotations

import re

from pydantic import Field, ValidationInfo

from veracity.prompts._rules import data_rule
from veracity.prompts.reply import Number, Reply, compact, note, preview
from veracity.prompts.rubric import named_scores
from veracity.prompts.template import Example, PromptTemplate, untrusted

CRITERIA = ("correctness", "completeness", "consistency")
_NAMES = {
    compact(written): name
    for name, names in {
        "correctness": ("correctness", "accuracy", "factual_correctness", "factuality", "correct"),
        "completeness": ("completeness", "coverage", "complete"),
        "consistency": ("consistency", "coherence", "consistent", "internal_consistency"),
    }.items()
    for written in names
}
_OVERALL = {compact(k) for k in ("overall", "overall_score", "total", "total_score", "score")}
_OVERALL |= {compact(k) for k in ("final_score", "weighted_score", "final", "average", "grade")}
_TEN_SCALE = re.compile(r"/\s*10\b(?!\s*0)|\bout\s+of\s+10\b(?!\s*0)", re.IGNORECASE)


def _on_0_to_100(
    numbers: dict[str, Number], reasoning: str, info: ValidationInfo
) -> dict[str, int]:
    """Scores on 0–100: an explicit ``x/y`` is converted; a 0–10 or 0–1 scale only when
    every score fits it and, for 0–10, the reasoning says "/10" or "out of 10"."""
    values = {n: v.value for n, v in numbers.items()}
    for name, number in numbers.items():
        if number.scale is not None and number.scale != 100:
            values[name] = number.value / number.scale * 100
            note(info, f"{name}: read {number.text!r} as {round(values[name])}/100")
    bare = [n for n, v in numbers.items() if v.scale is None]
    if bare and all(0 <= values[n] <= 10 for n in bare) and _TEN_SCALE.search(reasoning):
        values |= {name: values[name] * 10 for name in bare}
        note(info, f"the reasoning scores out of 10: multiplied {', '.join(bare)} by 10")
    elif (
        bare
        and all(0 <= values[n] <= 1 for n in bare)
        and any(not numbers[n].integral for n in bare)
    ):
        values |= {name: values[name] * 100 for name in bare}
        note(info, f"the scores look like 0-1 fractions: multiplied {', '.join(bare)} by 100")
    elif len(bare) == len(CRITERIA) and all(0 <= values[n] <= 10 for n in bare):
        note(info, "every score is at most 10; taken as 0-100 (no sign of a 0-10 scale)")
    for name, value in values.items():
        if not 0 <= value <= 100:
            raise ValueError(f"the {name} score {numbers[name].text} is outside 0 to 100")
        if value != round(value):
            note(info, f"{name}: rounded {value:g} to {round(value)}")
    return {name: round(value) for name, value in values.items()}


def _unknown(key: str) -> str:
    if compact(key) in _OVERALL:
        return f"ignored the judge's {key!r}: veracity computes the weighted score"
    return f"ignored the unknown key {preview(key)}"


class CriterionOutput(Reply):
    reasoning: str
    score: int = Field(ge=0, le=100)


class FactualAccuracyOutput(Reply):
    correctness: CriterionOutput
    completeness: CriterionOutput
    consistency: CriterionOutput

    @classmethod
    def shape(cls, value: object, info: ValidationInfo) -> object:
        """The three criteria from a reply of any shape (synonyms accuracy, coverage and
        coherence), their scores put on 0–100."""
        found = named_scores(value, _NAMES, info, _unknown)
        reasoning = " ".join(r for _, r in found.values())
        scores = _on_0_to_100({n: number for n, (number, _) in found.items()}, reasoning, info)
        return {n: {"reasoning": found[n][1], "score": scores[n]} for n in CRITERIA}


def render_factual_accuracy(question: str, answer: str, reference: str) -> dict[str, str]:
    """The blocks of :data:`FACTUAL_ACCURACY`."""
    return {
        "question": untrusted("question", question),
        "answer": untrusted("answer", answer),
        "reference": untrusted("reference", reference),
    }


FACTUAL_ACCURACY = PromptTemplate(
    id="factual_accuracy",
    version=2,
    system=(
        "You grade an answer to a question against a reference answer, which you take as "
        "the truth (do not use your own knowledge). Score three criteria, each an integer "
        "from 0 to 100, following the evaluation steps of each.\n\n"
        "Correctness: do the facts of the answer agree with the reference?\n"
        "1. List the facts the answer states that bear on the question.\n"
        "2. Compare each with the reference: it agrees, it disagrees, or the reference does "
        "not cover it.\n"
        "3. Score 100 if every fact the reference covers agrees with it; lower the score for "
        "each fact that disagrees, by its importance to the question; 0 if the main fact is "
        "wrong. Facts the reference does not cover do not lower correctness.\n\n"
        "Completeness: does the answer cover the key points of the reference?\n"
        "1. List the key points of the reference that answer the question.\n"
        "2. Check which of them the answer states, in any wording.\n"
        "3. Score the share of key points covered, weighting the central ones more: 100 if "
        "all are covered, 0 if none is.\n\n"
        "Consistency: is the answer free of contradictions?\n"
        "1. Look for statements of the answer that contradict each other.\n"
        "2. Look for statements of the answer that contradict the reference.\n"
        "3. Score 100 if there is no contradiction; lower the score for each contradiction, "
        "by its importance; 0 if the answer contradicts itself or the reference on its main "
        "point.\n\n"
        "Judge each criterion on its own. For each, write `reasoning` (follow its steps, "
        "briefly) before `score`. Do NOT compute any overall, total or weighted score: give "
        "only the three criteria.\n" + data_rule("question", "answer", "reference")
    ),
    user="{question}\n{answer}\n{reference}",
    output_model=FactualAccuracyOutput,
    examples=(
        Example(
            render_factual_accuracy(
                "Who built the Eiffel Tower, and when was it finished?",
                "Gustave Eiffel's company built it, and it was finished in 1901.",
                "The company of Gustave Eiffel built it; it was finished in 1889.",
            ),
            FactualAccuracyOutput(
                correctness=CriterionOutput(
                    reasoning="The builder agrees; the year 1901 disagrees with 1889.",
                    score=40,
                ),
                completeness=CriterionOutput(
                    reasoning="It covers both key points, the builder and the year.", score=100
                ),
                consistency=CriterionOutput(
                    reasoning="It does not contradict itself, but its year contradicts the "
                    "reference.",
                    score=50,
                ),
            ),
        ),
    ),
    max_tokens=768,
)
