"""The prompt behind factual_accuracy: G-Eval style criterion scores against a reference."""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator, Field, ValidationInfo

from veracity.prompts._rules import data_rule
from veracity.prompts.reply import Reply, Text, note, read_score, synonyms
from veracity.prompts.template import Example, PromptTemplate, untrusted

CRITERIA = ("correctness", "completeness", "consistency")


def _percent(raw: object, info: ValidationInfo) -> int:
    """A score on 0–100: an ``x/y`` converted, a decimal rounded, both noted."""
    value = read_score(raw, info, "score", 100)
    if value != round(value):
        note(info, f"rounded the score {value:g} to {round(value)}")
    return round(value)


class CriterionOutput(Reply):
    reasoning: Text = synonyms("reasoning reason explanation", "")
    score: Annotated[int, BeforeValidator(_percent)] = Field(ge=0, le=100)


class FactualAccuracyOutput(Reply):
    correctness: CriterionOutput = synonyms("correctness accuracy")
    completeness: CriterionOutput = synonyms("completeness coverage")
    consistency: CriterionOutput = synonyms("consistency coherence")


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
