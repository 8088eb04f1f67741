"""Read the claims out of a claim-extraction reply."""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator, Field, ValidationInfo

from veracity.judges.parsing._text import LIST_MARKER, describe_json, plural, preview
from veracity.judges.parsing.outcomes import ParseFailure
from veracity.judges.parsing.parsed import ParsedValue
from veracity.judges.parsing.reader import (
    Reading,
    ReplyModel,
    describe_output,
    note,
    synonyms,
    written,
)
from veracity.prompts.faithfulness import ExtractedClaims

__all__ = ["read_claims_reply"]


class _Claim(ReplyModel):
    """A claim written as an object."""

    text: object = written("claim statement text")


def _claims(items: object, info: ValidationInfo) -> tuple[str, ...]:
    """Claim strings from a JSON array, each skip and duplicate noted."""
    if not isinstance(items, list):
        raise ValueError(f"'claims' is {describe_json(items)}, not an array")
    claims: list[str] = []
    empty = 0
    for n, item in enumerate(items, start=1):
        text: object = item
        if isinstance(item, dict):
            text = _Claim.model_validate(item).text
        if not isinstance(text, str):
            note(info, f"skipped item {n}: not a claim string")
        elif not text.strip():
            empty += 1
            note(info, f"skipped item {n}: empty")
        elif text.strip() in claims:
            note(info, f"dropped duplicate claim {preview(text)}")
        else:
            claims.append(text.strip())
    if items and not claims and not empty:
        raise ValueError(f"none of the {len(items)} items is a claim string")
    return tuple(claims)


class _Claims(ReplyModel):
    claims: Annotated[
        tuple[str, ...],
        BeforeValidator(_claims),
        Field(validation_alias=synonyms("claims statements facts claim_list")),
    ]


def _from_lines(text: str) -> ParsedValue[tuple[str, ...]] | ParseFailure | None:
    """Claims from numbered ("1. ...", "1) ...") or bulleted ("- ", "* ", "• ") lines."""
    claims = []
    for line in text.splitlines():
        m = LIST_MARKER.match(line)
        if m is not None and (claim := line[m.end() :].strip()):
            claims.append(claim)
    if not claims:
        return None
    notes = [f"read {plural(len(claims), 'claim')} from list lines, not JSON"]
    return READING.validated({"claims": claims}, "legacy_list", notes)


READING = Reading(
    _Claims,
    lambda read: read.claims,
    describe_output(ExtractedClaims),
    shape=lambda value, _: {"claims": value} if isinstance(value, list) else value,
    text=_from_lines,
)


def read_claims_reply(text: str) -> ParsedValue[tuple[str, ...]] | ParseFailure:
    """Read the claims from a claim-extraction reply, whatever its shape.

    JSON first (``{"claims": [...]}``, a bare array, the keys ``statements``/``facts``/
    ``claim_list``, items that are objects with a ``claim``/``statement``/``text``), then
    numbered or bulleted lines, then refusal detection. ``{"claims": []}`` is a valid,
    empty result. JSON of the wrong shape is a ``"schema"`` failure.
    """
    return READING(text)
