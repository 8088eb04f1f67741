"""The prompt behind answer_classification, and the judge-free abstention check."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict

from veracity.prompts._rules import data_rule
from veracity.prompts.template import Example, PromptTemplate, untrusted

DEFAULT_ABSTENTION_PHRASES: tuple[str, ...] = (
    "i don't know",
    "i do not know",
    "i'm not sure",
    "i am not sure",
    "cannot determine",
    "can't determine",
    "cannot be determined",
    "cannot answer",
    "can't answer",
    "unable to answer",
    "unable to determine",
    "no information",
    "not enough information",
    "insufficient information",
    "don't have enough information",
    "do not have enough information",
    "not mentioned in the context",
    "not provided in the context",
    "the context does not say",
    "i cannot find",
    "i can't find",
    "i could not find",
    "i couldn't find",
)

# Apostrophe look-alikes judges and users type: right/left single quotes, modifier
# letter apostrophe, prime, backtick and acute accent.
_APOSTROPHES = str.maketrans(dict.fromkeys("\u2019\u2018\u02bc\u2032`\u00b4", "'"))


class ClassificationOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: str
    classification: Literal["correct", "wrong", "dont_know"]


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


def _phrase_pattern(phrase: str) -> str:
    """A phrase as a regex: words joined by any whitespace, apostrophes optional."""
    words = phrase.translate(_APOSTROPHES).casefold().split()
    parts = [re.escape(word).replace("'", "'?") for word in words]
    return r"\s+".join(parts)


@lru_cache(maxsize=32)
def _compiled(
    phrases: tuple[str, ...],
) -> tuple[re.Pattern[str], tuple[tuple[str, re.Pattern[str]], ...]]:
    """One pattern for any phrase (a single scan finds the first place one starts, however
    long the answer), and each phrase's own pattern (which of them match there)."""
    each = tuple(
        (phrase, re.compile(rf"(?<!\w){_phrase_pattern(phrase)}(?!\w)"))
        for phrase in phrases
        if phrase.strip()
    )
    alternatives = "|".join(f"(?:{_phrase_pattern(phrase)})" for phrase, _ in each)
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)"), each


def find_abstention(answer: str, phrases: Sequence[str] = DEFAULT_ABSTENTION_PHRASES) -> str | None:
    """The abstention phrase ``answer`` contains, or ``None``.

    Phrases match whole words only (``"no information"`` is not found in ``"piano
    information"``), in any case, across any whitespace, with straight, curly or missing
    apostrophes (``"I don’t know"`` and ``"I dont know"`` match ``"i don't know"``). When
    several match, the one starting first in the answer wins, then the longest.
    """
    text = answer.translate(_APOSTROPHES).casefold()
    any_phrase, each = _compiled(tuple(phrases))
    first = any_phrase.search(text) if each else None
    if first is None:
        return None
    best: tuple[int, str] | None = None
    for phrase, pattern in each:
        m = pattern.match(text, first.start())
        if m is not None and (best is None or m.end() > best[0]):
            best = (m.end(), phrase)
    assert best is not None  # the phrase the scan found matches there
    return best[1]
