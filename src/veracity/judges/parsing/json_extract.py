"""Find a JSON value in a judge's reply: strict, fenced, embedded in prose, or repaired."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

import json_repair

__all__ = ["JsonFound", "cut_short", "extract_json", "unwrap_schema_echo"]


@dataclass(frozen=True)
class JsonFound:
    """A JSON value found in a reply, and how it was found."""

    value: object
    method: Literal["strict", "fenced", "embedded", "repaired"]
    cut: bool = False  # repaired by closing what a reply cut short left open


_CLOSED_FENCE = re.compile(r"```[ \t]*[\w+.-]*[ \t]*\r?\n?(.*?)```", re.DOTALL)
_OPEN_FENCE = re.compile(r"```[ \t]*[\w+.-]*[ \t]*\r?\n?(.*)\Z", re.DOTALL)
_MAX_SPANS = 200


def _loads(text: str) -> tuple[bool, object]:
    """``json.loads`` that reports failure instead of raising; rejects NaN/Infinity."""

    def _no_constants(name: str) -> object:
        raise ValueError(f"non-finite constant {name}")

    try:
        return True, json.loads(text, parse_constant=_no_constants)
    except (ValueError, RecursionError):
        return False, None


def _fence_contents(text: str) -> list[str]:
    """Contents of ``` fences (with or without a language tag), plus an unclosed last one."""
    contents = [m.group(1) for m in _CLOSED_FENCE.finditer(text)]
    if text.count("```") % 2 == 1:
        last = text.rfind("```")
        m = _OPEN_FENCE.match(text, last)
        if m is not None:
            contents.append(m.group(1))
    return contents


def _span_end(text: str, start: int) -> int | None:
    """Index just past the bracket closing the one at ``start``, or ``None`` if unbalanced.

    Brackets inside double-quoted strings are ignored; bracket kinds are not checked
    (a mismatched span simply fails to decode later).
    """
    depth = 0
    in_string = False
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def _top_level_spans(text: str) -> list[tuple[int, int | None]]:
    """Top-level bracketed spans of ``text``: ``(start, end)``, ``end`` None if unclosed."""
    spans: list[tuple[int, int | None]] = []
    pos = 0
    while len(spans) < _MAX_SPANS:
        starts = [i for i in (text.find("{", pos), text.find("[", pos)) if i >= 0]
        if not starts:
            break
        start = min(starts)
        end = _span_end(text, start)
        spans.append((start, end))
        if end is None:
            break
        pos = end
    return spans


def _embedded(text: str) -> object | None:
    """The largest balanced JSON object/array in prose (first on ties), else ``None``.

    Preferring the largest keeps a stray citation such as ``[1]`` from winning over the
    real payload; only top-level spans are tried, never a fragment of a broken object.
    """
    best: tuple[int, object] | None = None
    for start, end in _top_level_spans(text):
        if end is None:
            continue
        ok, value = _loads(text[start:end])
        if ok and isinstance(value, dict | list) and (best is None or end - start > best[0]):
            best = (end - start, value)
    return None if best is None else best[1]


def _repair_one(span: str) -> object | None:
    """Repair one bracketed span; keep it only if it is a non-empty value of its own kind."""
    if span.startswith("[") and not any(c in span for c in "\"'{"):
        return None  # prose in brackets such as "[see above]", not a list
    try:
        value: object = json_repair.loads(span)
    except Exception:  # json_repair promises not to raise; do not trust it either
        return None
    wanted = dict if span.startswith("{") else list
    if isinstance(value, wanted) and value:
        return value
    return None


def _repaired(text: str) -> tuple[object, bool] | None:
    """Repair the first ``{``-span or ``[``-span of ``text`` (the bigger result wins), and
    whether the span broke off unclosed (a reply cut short, not one merely malformed)."""
    candidates: list[tuple[int, object, bool]] = []
    for opener in "{[":
        start = text.find(opener)
        if start < 0:
            continue
        end = _span_end(text, start)
        value = _repair_one(text[start:end] if end is not None else text[start:])
        if value is not None:
            size = len(json.dumps(value, ensure_ascii=False, default=str))
            candidates.append((size, value, end is None))
    if not candidates:
        return None
    _, value, cut = max(candidates, key=lambda c: c[0])
    return value, cut


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
    for key in _FILLED:
        if key in value:
            return value[key]
    enum = value.get("enum")
    if isinstance(enum, list) and len(enum) == 1:
        return enum[0]
    return value


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


def extract_json(text: str) -> JsonFound | None:
    """Find the JSON value in a judge's reply, or ``None`` if there is none.

    Tried in order: the whole stripped text as strict JSON (any value); the content of
    a ``` fence, tagged ``json`` or not; the largest balanced object/array embedded in
    prose; and finally ``json_repair`` on a fence's content or on the text from the
    first ``{``/``[`` (trailing commas, single quotes, comments, truncation), accepted
    only when it yields a non-empty object or array (``cut`` says whether it had to close
    what was left open). A JSON schema echoed back with its values filled in is unwrapped
    to the object it stands for (:func:`unwrap_schema_echo`).
    """
    found = _find(text)
    if found is None:
        return None
    unwrapped = unwrap_schema_echo(found.value)
    if unwrapped is not found.value:
        return JsonFound(unwrapped, found.method, found.cut)
    return found


def cut_short(text: str) -> bool:
    """Whether the JSON of ``text`` breaks off unclosed: a reply cut short, whose repair
    would be a guess at what is missing."""
    found = extract_json(text)
    return found is not None and found.cut


def _find(text: str) -> JsonFound | None:
    stripped = text.strip()
    if not stripped:
        return None
    ok, value = _loads(stripped)
    if ok:
        return JsonFound(value, "strict")
    fences = _fence_contents(stripped)
    for content in fences:
        ok, value = _loads(content.strip())
        if ok:
            return JsonFound(value, "fenced")
    found = _embedded(stripped)
    if found is not None:
        return JsonFound(found, "embedded")
    for content in fences:
        repaired = _repaired(content)
        if repaired is not None:
            return JsonFound(repaired[0], "repaired", repaired[1])
    repaired = _repaired(stripped)
    if repaired is not None:
        return JsonFound(repaired[0], "repaired", repaired[1])
    return None
