"""Read the claims out of a claim-extraction reply."""

from __future__ import annotations

from veracity.judges.parsing._text import LIST_MARKER, describe_json, field_of, plural, preview
from veracity.judges.parsing.json_extract import extract_json
from veracity.judges.parsing.outcomes import ParsedClaims, ParseFailure
from veracity.judges.parsing.refusal import detect_refusal

__all__ = ["parse_claims_reply"]

CONTAINER_KEYS = ("claims", "statements", "facts", "claim_list")
ITEM_TEXT_KEYS = ("claim", "statement", "text")
_EXPECTED = "expected a JSON object with a 'claims' array of strings"


def _claim_items(items: list[object], where: str) -> tuple[list[str], list[str]]:
    """Claim strings from a JSON array, plus notes on what was skipped."""
    claims: list[str] = []
    notes: list[str] = []
    for n, item in enumerate(items, start=1):
        text: object = item
        if isinstance(item, dict):
            found = field_of(item, ITEM_TEXT_KEYS)
            text = None if found is None else found[1]
        if not isinstance(text, str):
            notes.append(f"skipped item {n} of {where}: not a claim string")
            continue
        if text.strip():
            claims.append(text.strip())
        else:
            notes.append(f"skipped item {n} of {where}: empty")
    return claims, notes


def _dedupe(claims: list[str], notes: list[str]) -> tuple[str, ...]:
    seen: set[str] = set()
    unique: list[str] = []
    for claim in claims:
        if claim in seen:
            notes.append(f"dropped duplicate claim {preview(claim)}")
            continue
        seen.add(claim)
        unique.append(claim)
    return tuple(unique)


def _from_json(value: object, method: str) -> ParsedClaims | ParseFailure:
    where = "the array"
    if isinstance(value, dict):
        found = field_of(value, CONTAINER_KEYS)
        if found is None:
            return ParseFailure("schema", f"{_EXPECTED}; got {describe_json(value)}")
        key, items = found
        where = repr(key)
        if not isinstance(items, list):
            return ParseFailure(
                "schema", f"{_EXPECTED}; '{key}' is {describe_json(items)}, not an array"
            )
    elif isinstance(value, list):
        items = value
    else:
        return ParseFailure("schema", f"{_EXPECTED}; got {describe_json(value)}")
    claims, notes = _claim_items(items, where)
    if items and not claims and not any(n.endswith(": empty") for n in notes):
        return ParseFailure(
            "schema", f"{_EXPECTED}; none of the {len(items)} items of {where} is a claim string"
        )
    return ParsedClaims(_dedupe(claims, notes), method, tuple(notes))


def _from_lines(text: str) -> ParsedClaims | None:
    """Claims from numbered ("1. ...", "1) ...") or bulleted ("- ", "* ", "• ") lines."""
    claims = []
    for line in text.splitlines():
        m = LIST_MARKER.match(line)
        if m is not None:
            claim = line[m.end() :].strip()
            if claim:
                claims.append(claim)
    if not claims:
        return None
    notes: list[str] = [f"read {plural(len(claims), 'claim')} from list lines, not JSON"]
    return ParsedClaims(_dedupe(claims, notes), "legacy_list", tuple(notes))


def parse_claims_reply(text: str) -> ParsedClaims | ParseFailure:
    """Read the claims from a claim-extraction reply, whatever its shape.

    JSON first (``{"claims": [...]}``, a bare array, the keys ``statements``/``facts``/
    ``claim_list``, items that are objects with a ``claim``/``statement``/``text``), then
    numbered or bulleted lines, then refusal detection. ``{"claims": []}`` is a valid,
    empty result. JSON of the wrong shape is a ``"schema"`` failure.
    """
    found = extract_json(text)
    legacy = _from_lines(text)
    # JSON pulled out of prose that also has list lines may be a stray "[...]": lines win.
    if found is not None and not (
        legacy is not None
        and found.method in ("embedded", "repaired")
        and not isinstance(found.value, dict)
    ):
        result = _from_json(found.value, found.method)
        if isinstance(result, ParsedClaims):
            return result
        if legacy is None:
            return result
    if legacy is not None:
        return legacy
    refusal = detect_refusal(text)
    if refusal is not None:
        return ParseFailure("refusal", refusal)
    return ParseFailure(
        "unparseable",
        f'{_EXPECTED} such as {{"claims": ["..."]}}; found no JSON and no list of claims',
    )
