"""Read the correct / wrong / dont_know label out of an answer-classification reply."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated

from pydantic import BeforeValidator, Field, ValidationInfo

from veracity.judges.parsing._coerce import label_table, read_label, words
from veracity.judges.parsing._text import REASON_LINE, as_text, demark, leading, preview
from veracity.judges.parsing.outcomes import ParseFailure
from veracity.judges.parsing.parsed import ParsedValue
from veracity.judges.parsing.probabilities import choice_probabilities, locate_values
from veracity.judges.parsing.reader import (
    Reading,
    Reason,
    ReplyModel,
    bare,
    describe_output,
    note,
    synonyms,
)
from veracity.prompts.classification import ClassificationOutput
from veracity.types import TokenLogprob
from veracity.types.judgements import AnswerClass, Classification

__all__ = [
    "read_classification_reply",
    "with_label_probabilities",
]

_LABELS = {
    AnswerClass.CORRECT: ("correct", "right", "true", "yes", "accurate", "1"),
    AnswerClass.WRONG: (
        "wrong",
        "incorrect",
        "not correct",
        "false",
        "no",
        "inaccurate",
        "hallucinated",
        "hallucination",
        "0",
    ),
    AnswerClass.DONT_KNOW: (
        "dont_know",
        "dont know",
        "don't know",
        "do not know",
        "unknown",
        "abstain",
        "abstained",
        "abstains",
        "abstention",
        "idk",
        "not answered",
        "no answer",
        "refused",
        "refusal",
    ),
}
TABLE = label_table(_LABELS)
_LABEL_LINE = re.compile(
    r"^\W*(?:final\s+)?(?:classification|class|label|verdict|category)\W*[:=]\s*(?P<v>.+)$",
    re.IGNORECASE | re.MULTILINE,
)
_MAX_LABEL_WORDS = 4


def _label(raw: object) -> AnswerClass | None:
    found = read_label(raw, TABLE)
    if found is None and isinstance(raw, str):  # "correct - it matches", "**Wrong.**"
        first = leading(raw, lambda words: read_label(words, TABLE), _MAX_LABEL_WORDS)
        found = None if first is None else first[0]
    return found


def _read_label(raw: object, info: ValidationInfo) -> AnswerClass:
    label = _label(raw)
    if label is None:
        raise ValueError(f"{preview(as_text(raw))} is not one of these labels")
    if words(as_text(raw)) != words(label.value):
        note(info, f"read the label {preview(as_text(raw))} as {label.value!r}")
    return label


class _Classification(ReplyModel):
    reason: Reason = ""
    classification: Annotated[
        AnswerClass,
        BeforeValidator(_read_label),
        Field(
            validation_alias=synonyms(
                "classification class label verdict category result answer_class"
            )
        ),
    ]


def _from_text(text: str) -> ParsedValue[Classification] | ParseFailure | None:
    clean = demark(text)
    m = _LABEL_LINE.search(clean)
    if m is None:
        if read_label(clean.strip(), TABLE) is None:
            return None
        data, notes = {"classification": clean.strip()}, ["the reply is a bare label"]
    else:
        reason = REASON_LINE.search(clean)
        data = {"classification": m.group("v"), "reason": reason.group("v") if reason else ""}
        notes = ["read the label from text, not JSON"]
    return READING.validated(data, "legacy_text", notes)


READING = Reading(
    _Classification,
    lambda read: Classification(label=read.classification, reason=read.reason),
    describe_output(ClassificationOutput),
    shape=bare("classification", lambda v: isinstance(v, str | bool | int)),
    text=_from_text,
)


def read_classification_reply(text: str) -> ParsedValue[Classification] | ParseFailure:
    """Read the classification of an answer: correct, wrong or dont_know.

    ``{"reason", "classification"}`` (``label``/``verdict``/``class`` too), a bare label,
    or a ``Classification: correct`` line. Synonyms: right/true/yes/accurate are correct;
    incorrect/false/no/inaccurate/hallucinated are wrong; "don't know"/unknown/abstain/
    idk/"not answered"/refused are dont_know. An unknown label is a ``"schema"`` failure.
    """
    return READING(text)


_WRITTEN = {label.value: label for label in AnswerClass}


def with_label_probabilities(
    classification: Classification, text: str, tokens: Sequence[TokenLogprob]
) -> Classification:
    """``classification`` with the probability of each label where the reply's token
    log-probabilities give them (the label written as one of the three names)."""
    (offset,) = locate_values(
        text, [classification.label.value], _Classification.keys("classification")
    )
    found = choice_probabilities(tokens, text, offset, _WRITTEN)
    if found is None:
        return classification
    probabilities = {label: found.get(label, 0.0) for label in AnswerClass}
    return classification.model_copy(update={"probabilities": probabilities})
