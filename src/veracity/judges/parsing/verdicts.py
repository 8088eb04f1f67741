"""Read the verdicts out of a claim-verification reply."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from veracity.judges.parsing._text import (
    REASON_KEYS,
    as_text,
    describe_json,
    field_of,
    label_text,
    preview,
)
from veracity.judges.parsing.json_extract import extract_json
from veracity.judges.parsing.labels import normalise_verdict
from veracity.judges.parsing.legacy_verdicts import parse_legacy_verdicts
from veracity.judges.parsing.outcomes import ParsedVerdicts, ParseFailure, RawVerdict
from veracity.judges.parsing.probabilities import choice_probabilities, locate_values
from veracity.judges.parsing.refusal import detect_refusal
from veracity.types import TokenLogprob, Verdict

__all__ = ["parse_verdicts_reply", "with_p_supported"]

CONTAINER_KEYS = ("verdicts", "results", "statements", "judgements", "judgments", "claims")
CLAIM_KEYS = ("claim", "statement", "text")
VERDICT_KEYS = ("verdict", "label", "answer", "attributed", "supported", "result")
EVIDENCE_KEYS = ("evidence", "quote", "citation", "support")

_EXPECTED = (
    "expected a JSON object with a 'verdicts' array of objects with 'claim', 'reason', "
    "'evidence' and 'verdict' (one of 'supported', 'contradicted', 'not_enough_info')"
)
# Keys of a claim -> label mapping that name a position rather than the claim's text.
_POSITIONAL_KEY = re.compile(r"^(?:claim|statement)?[\s_#-]*\d{1,3}$", re.IGNORECASE)

_Read = tuple[list[RawVerdict], list[str]]


def _optional(obj: dict[str, object], names: tuple[str, ...]) -> str:
    found = field_of(obj, names)
    return "" if found is None else as_text(found[1])


def _item(obj: dict[str, object], where: str, claim: str | None) -> RawVerdict | str:
    """One verdict object, or a note saying why it was skipped."""
    found = field_of(obj, VERDICT_KEYS)
    if found is None:
        return f"skipped {where}: it has no 'verdict'"
    verdict = normalise_verdict(found[1])
    if verdict is None:
        return f"skipped {where}: unknown verdict label {preview(label_text(found[1]))}"
    given = None if (found_claim := field_of(obj, CLAIM_KEYS)) is None else found_claim[1]
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
        reason=_optional(obj, REASON_KEYS),
        evidence=_optional(obj, EVIDENCE_KEYS),
        raw_label=label_text(found[1]),
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


def _read_json(value: object) -> _Read | ParseFailure:
    """Verdicts from a JSON value of any accepted shape, or a schema failure."""
    if isinstance(value, list):
        return _from_list(value, "the array")
    if not isinstance(value, dict) or not value:
        verdict = normalise_verdict(value)
        if verdict is not None:  # a single bare label, e.g. true
            return [RawVerdict(None, verdict, raw_label=label_text(value))], []
        return ParseFailure("schema", f"{_EXPECTED}; got {describe_json(value)}")
    container = field_of(value, CONTAINER_KEYS)
    if container is not None:
        key, inner = container
        if isinstance(inner, list):
            return _from_list(inner, repr(key))
        if isinstance(inner, dict):
            return _from_mapping(inner)
        return ParseFailure("schema", f"{_EXPECTED}; '{key}' is {describe_json(inner)}")
    if field_of(value, VERDICT_KEYS) is not None:  # one verdict object on its own
        return _collect([_item(value, "the verdict object", None)])
    return _from_mapping(value)  # {"claim text": "label", ...}


def _from_json(value: object, method: str) -> ParsedVerdicts | ParseFailure:
    read = _read_json(value)
    if isinstance(read, ParseFailure):
        return read
    items, notes = read
    if not items and notes:
        return ParseFailure(
            "schema", f"{_EXPECTED}; no usable verdict in {describe_json(value)} ({notes[0]})"
        )
    return ParsedVerdicts(tuple(items), method, tuple(notes))


def _is_weak(value: object) -> bool:
    """JSON that may be a stray bracket in prose (``[1]``) rather than the answer."""
    if isinstance(value, dict):
        return False
    return not (isinstance(value, list) and any(isinstance(v, dict) for v in value))


def parse_verdicts_reply(text: str) -> ParsedVerdicts | ParseFailure:
    """Read the verdicts from a claim-verification reply, whatever its shape.

    JSON first (``{"verdicts": [...]}``, a bare array, container and item key synonyms,
    a ``{"claim text": "label"}`` mapping), then the legacy text formats (ragas' "Final
    verdict for each statement in order: Yes. No.", "Verdict: yes" lines or blocks,
    numbered label lines), then refusal detection. Items whose label is unknown are
    skipped with a note; JSON of the wrong shape is a ``"schema"`` failure.
    """
    found = extract_json(text)
    weak = found is not None and found.method in ("embedded", "repaired") and _is_weak(found.value)
    failure: ParseFailure | None = None
    if found is not None and not weak:
        result = _from_json(found.value, found.method)
        if isinstance(result, ParsedVerdicts):
            return result
        failure = result
    legacy = parse_legacy_verdicts(text)
    if legacy is not None:
        return legacy
    if found is not None and weak:
        result = _from_json(found.value, found.method)
        if isinstance(result, ParsedVerdicts):
            return result
        failure = result
    if failure is not None:
        return failure
    refusal = detect_refusal(text)
    if refusal is not None:
        return ParseFailure("refusal", refusal)
    return ParseFailure(
        "unparseable", f"{_EXPECTED}; found no JSON and no verdict lines in the reply"
    )


_LABELS = {verdict.value: verdict for verdict in Verdict}


def with_p_supported(
    items: Sequence[RawVerdict], text: str, tokens: Sequence[TokenLogprob]
) -> tuple[RawVerdict, ...]:
    """``items`` read from ``text``, each with its P(supported) where the reply's token
    log-probabilities give one (see :mod:`~veracity.judges.parsing.probabilities`)."""
    if not tokens:
        return tuple(items)
    offsets = locate_values(text, [item.raw_label for item in items], VERDICT_KEYS)
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
