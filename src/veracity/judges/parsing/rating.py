"""Read the direct 0–1 relevance rating out of a relevance-rating reply."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated

from pydantic import BeforeValidator, Field, ValidationInfo

from veracity.judges.parsing._coerce import read_number
from veracity.judges.parsing._text import REASON_LINE, as_text, collapse, demark, preview
from veracity.judges.parsing.outcomes import ParseFailure
from veracity.judges.parsing.parsed import ParsedValue
from veracity.judges.parsing.probabilities import weighted_number
from veracity.judges.parsing.reader import (
    Reading,
    Reason,
    ReplyModel,
    bare,
    describe_output,
    note,
    synonyms,
)
from veracity.prompts.answer_relevance import RelevanceRatingOutput
from veracity.types import TokenLogprob
from veracity.types.judgements import RelevanceRating

__all__ = ["read_rating_reply", "with_expected_rating"]

_NUM = r"[-+]?\d+(?:\.\d+)?(?:\s*(?:/|out\s+of)\s*\d+(?:\.\d+)?)?\s*%?"
_SCORE_LINE = re.compile(
    rf"\b(?:score|rating|relevance)\b[^\S\n]*(?:is|of)?[^\S\n]*[:=]?[^\S\n]*[*_]*(?P<n>{_NUM})",
    re.IGNORECASE,
)
# "I rate it 8/10": one fraction over 5, 10 or 100 anywhere in the text.
_FRACTION = re.compile(r"(?<![\w/.])(?P<n>\d+(?:\.\d+)?\s*(?:/|out\s+of)\s*(?:5|10|100))(?![\w/])")


def _fraction(raw: object, info: ValidationInfo) -> float:
    """The score on 0–1: ``x/y`` as a fraction, an integer as 0–100, a decimal in [0, 1]
    as it is, any other number as 0–100."""
    number = read_number(raw)
    if number is None:
        raise ValueError(f"the score {preview(as_text(raw))} is not a number")
    value = number.value
    if number.scale is not None:
        if not 0 <= value <= number.scale:
            raise ValueError(f"the score {number.text!r} is out of range")
        if number.scale != 100:
            note(info, f"read the score {number.text!r} as {value / number.scale:g}")
        return value / number.scale
    if not number.integral and 0 <= value <= 1:
        note(info, f"read the score {number.text} as a 0-1 fraction")
        return value
    if not 0 <= value <= 100:
        raise ValueError(f"the score {number.text} is outside 0 to 100")
    return value / 100


class _Rating(ReplyModel):
    reason: Reason = ""
    score: Annotated[
        float,
        BeforeValidator(_fraction),
        Field(
            validation_alias=synonyms(
                "score rating relevance relevance_score answer_relevance value"
            )
        ),
    ]


def _from_text(text: str) -> ParsedValue[RelevanceRating] | ParseFailure | None:
    clean = demark(text)
    m = _SCORE_LINE.search(clean)
    keyed = m is not None
    if m is None:
        fractions = list(_FRACTION.finditer(clean))
        m = fractions[0] if len(fractions) == 1 else None
    raw = m.group("n") if m is not None else clean.strip()
    if m is None and read_number(raw) is None:
        return None
    reason_line = REASON_LINE.search(clean)
    if reason_line is not None:
        reason = reason_line.group("v").strip()
    elif keyed and m is not None:  # the text around "Score: 85"
        reason = collapse(clean[: m.start()] + " " + clean[m.end() :]).strip(" .,;:-")
    else:  # "I rate it 8/10 overall." is its own reason; a bare number has none
        around = clean[: m.start()] + clean[m.end() :] if m is not None else ""
        reason = collapse(clean) if any(ch.isalpha() for ch in around) else ""
    notes = ["read the score from text, not JSON"]
    return READING.validated({"score": raw, "reason": reason}, "legacy_text", notes)


READING = Reading(
    _Rating,
    lambda read: RelevanceRating(score=read.score, reason=read.reason),
    describe_output(RelevanceRatingOutput),
    shape=bare("score", lambda v: isinstance(v, int | float | str) and not isinstance(v, bool)),
    text=_from_text,
)


def read_rating_reply(text: str) -> ParsedValue[RelevanceRating] | ParseFailure:
    """Read a direct relevance rating and scale it to 0–1.

    ``{"reason", "score"}`` (``rating``/``relevance`` too), a bare number, or text such
    as ``Score: 85`` or ``8/10``. An integer is on 0–100 (``85`` -> 0.85), ``"x/y"`` is
    x/y (``"8/10"`` -> 0.8), a decimal in [0, 1] is taken as it is (``0.85``); anything
    out of range is a ``"schema"`` failure.
    """
    return READING(text)


_WRITTEN_SCORE = re.compile(
    rf'"(?:{"|".join(_Rating.keys("score"))})"\s*:\s*"?(?P<n>\d{{1,3}})(?![\d.])', re.IGNORECASE
)


def with_expected_rating(
    rating: RelevanceRating, text: str, tokens: Sequence[TokenLogprob]
) -> RelevanceRating:
    """``rating`` with its probability-weighted value where the reply's token
    log-probabilities give one: a 0–100 integer written as one token (tokenizers that
    split numbers into digits give none)."""
    written = _WRITTEN_SCORE.search(text)
    if written is None or int(written.group("n")) / 100 != rating.score:
        return rating
    expected = weighted_number(tokens, text, written.start("n"), 0, 100)
    return rating if expected is None else rating.model_copy(update={"expected": expected / 100})
