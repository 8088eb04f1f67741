"""Find a JSON value in a judge's reply: strict, fenced, embedded in prose, or repaired."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import json_repair


@dataclass(frozen=True)
class JsonFound:
    """A JSON value found in a reply, and how it was found."""

    value: object
    method: Literal["strict", "fenced", "embedded", "repaired"]
    cut: bool = False  # repaired by closing what a reply cut short left open


# A ``` fence, with or without a language tag; the last one may be left open.
_FENCE = re.compile(r"```[ \t]*[\w+.-]*[ \t]*\r?\n?(.*?)(?:```|\Z)", re.DOTALL)
_OPENER = re.compile(r"[{\[]")
_MAX_SPANS = 200


def _no_constant(name: str) -> object:
    raise ValueError(f"non-finite constant {name}")


def _loads(text: str) -> tuple[bool, object]:
    """``json.loads`` that reports failure instead of raising; rejects NaN/Infinity."""
    try:
        return True, json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return False, None


def _span_end(text: str, start: int) -> int | None:
    """Index just past the bracket closing the one at ``start`` (brackets inside
    double-quoted strings ignored, kinds not checked), or ``None`` if it is never closed."""
    depth = 0
    in_string = escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            escaped, in_string = (False, True) if escaped else (ch == "\\", ch != '"')
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def _spans(text: str) -> Iterator[tuple[str, bool]]:
    """The top-level bracketed spans of ``text``, each with whether it is left open (the
    last one then runs to the end): never a fragment of a larger span."""
    pos = 0
    for _ in range(_MAX_SPANS):
        opener = _OPENER.search(text, pos)
        if opener is None:
            return
        end = _span_end(text, opener.start())
        yield text[opener.start() : end], end is None
        if end is None:
            return
        pos = end


def _repair(span: str) -> object | None:
    """``json_repair`` on one span, kept only if it is a non-empty value of its own kind."""
    if span.startswith("[") and not any(c in span for c in "\"'{"):
        return None  # prose in brackets such as "[see above]", not a list
    try:
        value: object = json_repair.loads(span)
    except Exception:  # json_repair promises not to raise; do not trust it either
        return None
    return value if isinstance(value, dict if span[0] == "{" else list) and value else None


def _size(found: tuple[object, bool]) -> int:
    return len(json.dumps(found[0], ensure_ascii=False, default=str))


def _in_prose(text: str) -> JsonFound | None:
    """The largest bracketed value of ``text`` (the first on ties, so a citation such as
    ``[1]`` never wins over the payload): a strict one, else a repaired one."""
    spans = list(_spans(text))
    strict: list[tuple[object, bool]] = []
    for span, cut in spans:
        ok, value = (False, None) if cut else _loads(span)
        if ok and isinstance(value, dict | list):
            strict.append((value, False))
    if strict:
        return JsonFound(max(strict, key=_size)[0], "embedded")
    repaired = [(v, cut) for span, cut in spans if (v := _repair(span)) is not None]
    if repaired:
        value, cut = max(repaired, key=_size)
        return JsonFound(value, "repaired", cut)
    return None


def _find(text: str) -> JsonFound | None:
    stripped = text.strip()
    if not stripped:
        return None
    ok, value = _loads(stripped)
    if ok:
        return JsonFound(value, "strict")
    for fence in _FENCE.finditer(stripped):
        ok, value = _loads(fence[1].strip())
        if ok:
            return JsonFound(value, "fenced")
    return _in_prose(stripped)


def extract_json(text: str) -> JsonFound | None:
    """The JSON value in a judge's reply, or ``None``: the whole text as strict JSON (any
    value), else a ``` fence's content, else the largest bracketed value in prose, strict
    or repaired by ``json_repair`` (trailing commas, single quotes, comments, truncation:
    ``cut``); a JSON schema echoed back filled in is unwrapped to the object it meant."""
    found = _find(text)
    if found is None:
        return None
    unwrapped = unwrap_schema_echo(found.value)
    return found if unwrapped is found.value else JsonFound(unwrapped, found.method, found.cut)


# The words of a JSON schema; a reply made of them is a schema echoed back, filled in.
_SCHEMA_WORDS = frozenset(
    {"type", "properties", "required", "additionalProperties", "title", "description",
     "$defs", "$schema", "definitions", "items", "enum", "const", "minimum", "maximum"}
)  # fmt: skip
_FILLED = ("value", "const", "default", "example")


def _filled(value: object) -> object:
    """The value a model wrote into one property of an echoed schema."""
    if not isinstance(value, dict) or not set(value) <= _SCHEMA_WORDS | set(_FILLED):
        return value
    if isinstance(value.get("properties"), dict):
        return unwrap_schema_echo(value)
    if isinstance(value.get("items"), list):
        return [_filled(item) for item in value["items"]]
    written = [value[key] for key in _FILLED if key in value]
    enum = value.get("enum")
    if not written and isinstance(enum, list) and len(enum) == 1:
        written = enum
    return written[0] if written else value


def unwrap_schema_echo(value: object) -> object:
    """A reply that copies the JSON schema back with values filled in
    (``{"type": "object", "properties": {"claims": {"items": ["a", "b"]}}}``) as the object
    it meant (``{"claims": ["a", "b"]}``); any other value unchanged."""
    if (
        isinstance(value, dict)
        and isinstance(value.get("properties"), dict)
        and set(value) <= _SCHEMA_WORDS
    ):
        return {str(k): _filled(v) for k, v in value["properties"].items()}
    return value
