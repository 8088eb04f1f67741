"""Read the verdicts out of a claim-verification reply."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Annotated

from pydantic import BeforeValidator, Field, InstanceOf, ValidationInfo

from veracity.judges.parsing._text import as_text, describe_json, label_text, preview
from veracity.judges.parsing.labels import normalise_verdict
from veracity.judges.parsing.legacy_verdicts import parse_legacy_verdicts
from veracity.judges.parsing.outcomes import ParseFailure, RawVerdict
from veracity.judges.parsing.parsed import ParsedValue
from veracity.judges.parsing.probabilities import choice_probabilities, locate_values
from veracity.judges.parsing.reader import (
    Reading,
    Reason,
    ReplyModel,
    describe_output,
    note,
    synonyms,
    written,
)
from veracity.prompts.faithfulness import ClaimJudgements
from veracity.types import TokenLogprob, Verdict

__all__ = ["read_verdicts_reply", "with_p_supported"]

# Keys of a claim -> label mapping that name a position rather than the claim's text.
_POSITIONAL_KEY = re.compile(r"^(?:claim|statement)?[\s_#-]*\d{1,3}$", re.IGNORECASE)

_Read = tuple[list[RawVerdict], list[str]]


class _Item(ReplyModel):
    """One verdict object; a field absent from it is not in ``model_fields_set``."""

    verdict: object = written("verdict label answer attributed supported result")
    claim: object = written("claim statement text")
    reason: Reason = ""
    evidence: Annotated[
        str,
        BeforeValidator(as_text),
        Field(validation_alias=synonyms("evidence quote citation support")),
    ] = ""


def _item(obj: dict[str, object], where: str, claim: str | None) -> RawVerdict | str:
    """One verdict object, or a note saying why it was skipped."""
    read = _Item.model_validate(obj)
    if "verdict" not in read.model_fields_set:
        return f"skipped {where}: it has no 'verdict'"
    verdict = normalise_verdict(read.verdict)
    if verdict is None:
        return f"skipped {where}: unknown verdict label {preview(label_text(read.verdict))}"
    given = read.claim
    number: int | None = None
    if isinstance(given, str) and given.strip().isdigit():  # "2": the claim's number
        number = int(given)
    elif isinstance(given, str) and given.strip():
        claim = given.strip()
    elif isinstance(given, int) and not isinstance(given, bool):
        number = given
    return RawVerdict(
        claim=claim,
        verdict=verdict,
        reason=read.reason,
        evidence=read.evidence,
        raw_label=label_text(read.verdict),
        number=number,
    )


def _label(value: object, where: str, claim: str | None) -> RawVerdict | str:
    """A bare label (string, boolean or 0/1), or a note saying why it was skipped."""
    if isinstance(value, dict):
        return _item(value, where, claim)
    verdict = normalise_verdict(value)
    if verdict is None:
        return f"skipped {where}: {preview(label_text(value))} is not a verdict"
    return RawVerdict(claim=claim, verdict=verdict, raw_label=label_text(value))


def _collect(results: list[RawVerdict | str]) -> _Read:
    items = [r for r in results if isinstance(r, RawVerdict)]
    notes = [r for r in results if isinstance(r, str)]
    return items, notes


def _from_list(values: list[object], where: str) -> _Read:
    return _collect([_label(v, f"item {n} of {where}", None) for n, v in enumerate(values, 1)])


def _from_mapping(mapping: dict[str, object]) -> _Read:
    results: list[RawVerdict | str] = []
    for key, value in mapping.items():
        claim = None if _POSITIONAL_KEY.match(key.strip()) else key.strip()
        results.append(_label(value, f"the entry for {preview(key)}", claim or None))
    return _collect(results)


def _verdicts(value: object, info: ValidationInfo) -> tuple[RawVerdict, ...]:
    """Verdicts from an array (of objects or bare labels) or a ``{"claim text": label}``
    mapping; each item that is not one is skipped with a note."""
    if isinstance(value, list):
        items, notes = _from_list(value, "the array")
    elif isinstance(value, dict):
        items, notes = _from_mapping(value)
    else:
        raise ValueError(f"'verdicts' is {describe_json(value)}")
    for skipped in notes:
        note(info, skipped)
    if not items and notes:
        raise ValueError(f"no usable verdict ({notes[0]})")
    return tuple(items)


class _Verdicts(ReplyModel):
    verdicts: Annotated[
        tuple[InstanceOf[RawVerdict], ...],
        BeforeValidator(_verdicts),
        Field(validation_alias=synonyms("verdicts results statements judgements judgments claims")),
    ]


# The keys a verdict array comes under, for the reader of a reply cut short.
CONTAINER_KEYS = _Verdicts.keys("verdicts")


def _shape(value: object, _: list[str]) -> object:
    """A bare array, one verdict object, a claim -> label mapping or one bare label, as
    the ``verdicts`` they are."""
    if isinstance(value, list):
        return {"verdicts": value}
    if isinstance(value, dict) and value and _Verdicts.given("verdicts", value) is None:
        return {"verdicts": [value] if _Item.given("verdict", value) is not None else value}
    if not isinstance(value, dict) and normalise_verdict(value) is not None:
        return {"verdicts": [value]}
    return value


READING = Reading(
    _Verdicts,
    lambda read: read.verdicts,
    describe_output(ClaimJudgements),
    shape=_shape,
    text=parse_legacy_verdicts,
)


def read_verdicts_reply(text: str) -> ParsedValue[tuple[RawVerdict, ...]] | ParseFailure:
    """Read the verdicts from a claim-verification reply, whatever its shape.

    JSON first (``{"verdicts": [...]}``, a bare array, container and item key synonyms,
    a ``{"claim text": "label"}`` mapping), then the legacy text formats (ragas' "Final
    verdict for each statement in order: Yes. No.", "Verdict: yes" lines or blocks,
    numbered label lines), then refusal detection. Items whose label is unknown are
    skipped with a note; JSON of the wrong shape is a ``"schema"`` failure.
    """
    return READING(text)


# The labels a judge is asked for (supported_by_conversation is veracity's, not the judge's).
_LABELS = {v.value: v for v in (Verdict.SUPPORTED, Verdict.CONTRADICTED, Verdict.NOT_ENOUGH_INFO)}


def with_p_supported(
    items: Sequence[RawVerdict], text: str, tokens: Sequence[TokenLogprob]
) -> tuple[RawVerdict, ...]:
    """``items`` read from ``text``, each with its P(supported) where the reply's token
    log-probabilities give one (see :mod:`~veracity.judges.parsing.probabilities`)."""
    if not tokens:
        return tuple(items)
    offsets = locate_values(text, [item.raw_label for item in items], _Item.keys("verdict"))
    found = []
    for item, offset in zip(items, offsets, strict=True):
        choices = {**_LABELS, item.raw_label: item.verdict}
        distribution = choice_probabilities(tokens, text, offset, choices)
        if distribution is None:
            found.append(item)
        else:
            p_supported = distribution.get(Verdict.SUPPORTED, 0.0)
            found.append(dataclasses.replace(item, p_supported=p_supported))
    return tuple(found)
