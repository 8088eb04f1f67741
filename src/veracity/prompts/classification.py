"""The prompt behind answer_classification."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BeforeValidator, ValidationInfo

from veracity.prompts._rules import data_rule
from veracity.prompts.reply import (
    REASONS,
    Reply,
    Text,
    as_text,
    label_table,
    note,
    preview,
    read_label,
    synonyms,
    words,
)
from veracity.prompts.template import Example, PromptTemplate, untrusted

CLASSES = label_table(
    {
        "correct": ("correct", "right", "true", "yes", "accurate", "1"),
        "wrong": (
            *("wrong", "incorrect", "not correct", "false", "no", "inaccurate"),
            *("hallucinated", "hallucination", "0"),
        ),
        "dont_know": (
            *("dont_know", "dont know", "don't know", "do not know", "unknown", "abstain"),
            *("abstained", "abstains", "abstention", "idk", "not answered", "no answer"),
            *("refused", "refusal"),
        ),
    }
)


def _class(raw: object, info: ValidationInfo) -> str:
    """A label or one of its synonyms (noted)."""
    found = read_label(raw, CLASSES)
    if found is None:
        raise ValueError(f"{preview(as_text(raw))} is not one of these labels")
    if words(as_text(raw)) != words(found):
        note(info, f"read the label {preview(as_text(raw))} as {found!r}")
    return found


class ClassificationOutput(Reply):
    reason: Text = synonyms(REASONS, "")
    classification: Annotated[Literal["correct", "wrong", "dont_know"], BeforeValidator(_class)] = (
        synonyms("classification class label verdict category result answer_class")
    )


def render_classification(question: str, answer: str, reference: str) -> dict[str, str]:
    """The blocks of :data:`ANSWER_CLASSIFICATION`."""
    return {
        "question": untrusted("question", question),
        "answer": untrusted("answer", answer),
        "reference": untrusted("reference", reference),
    }


_Q = "When was the Eiffel Tower finished?"
_REF = "It was finished in 1889."

ANSWER_CLASSIFICATION = PromptTemplate(
    id="answer_classification",
    version=2,
    system=(
        "You classify an answer to a question against a reference answer, which you take "
        "as the truth (do not use your own knowledge). `correct`: the answer agrees with the "
        "reference on what the question asks, in any wording; extra details that do not "
        "contradict the reference are fine. `wrong`: the answer states something that "
        "disagrees with the reference on what the question asks, or answers something else. "
        "`dont_know`: the answer abstains, saying it does not know, cannot answer or lacks "
        "the information, without committing to an answer. A hedged answer that still "
        "commits to an answer is `correct` or `wrong` by what it commits to. Give `reason` "
        "first, one or two sentences, then `classification`.\n"
        + data_rule("question", "answer", "reference")
    ),
    user="{question}\n{answer}\n{reference}",
    output_model=ClassificationOutput,
    examples=(
        Example(
            render_classification(_Q, "The tower was completed in 1889, for a World's Fair.", _REF),
            ClassificationOutput(reason="Both give 1889.", classification="correct"),
        ),
        Example(
            render_classification(_Q, "I believe it was finished in 1901.", _REF),
            ClassificationOutput(
                reason="It commits to 1901; the reference says 1889.", classification="wrong"
            ),
        ),
        Example(
            render_classification(_Q, "Sorry, I can't find that in the documents.", _REF),
            ClassificationOutput(reason="It gives no answer.", classification="dont_know"),
        ),
    ),
    max_tokens=256,
)
