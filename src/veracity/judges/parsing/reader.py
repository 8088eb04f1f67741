"""Read a judge's reply with its prompt's own output model.

The JSON found in the reply (strict, fenced, embedded, repaired) is validated against the
output model, which reads synonyms and coercions itself (see :mod:`veracity.prompts.reply`).
Failing that, the question's legacy text format is tried (the claim verdicts have one),
then refusal detection. A validation error, put in words after what the output model
expects, is the failure's message: the text a re-ask shows the judge.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from veracity.judges.parsing.json_extract import extract_json
from veracity.prompts.reply import describe_json

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")
U = TypeVar("U")

FailureKind = Literal["unparseable", "refusal", "schema", "truncated"]


@dataclass(frozen=True)
class ParsedValue(Generic[T]):
    """A value read from a reply, its reading path (strict, fenced, embedded, repaired or
    legacy_*), and every coercion made on the way."""

    value: T
    method: str
    notes: tuple[str, ...] = ()

    def map(self, convert: Callable[[T], U]) -> ParsedValue[U]:
        return ParsedValue(convert(self.value), self.method, self.notes)


@dataclass(frozen=True)
class ParseFailure:
    """Why a reply could not be read; ``message`` is fit to show the judge in a re-ask."""

    kind: FailureKind
    message: str

    def map(self, convert: Callable[[Any], object]) -> ParseFailure:
        return self  # nothing was read: the failure stands


def _failure_text(errors: Sequence[Mapping[str, Any]], given: object) -> str:
    """The first problem in words."""
    first = errors[0]
    loc = ".".join(str(part) for part in first["loc"])
    if first["type"] in ("model_type", "missing"):
        missing = f", without {loc!r}" if first["type"] == "missing" and given else ""
        return f"got {describe_json(given)}{missing}"
    message = str(first["msg"]).removeprefix("Value error, ")
    if first["type"] == "value_error":
        return f"{loc}: {message}" if "." in loc else message
    return f"'{loc}': {message}"


def read_reply(
    text: str,
    model: type[M],
    context: Mapping[str, object] = MappingProxyType({}),
    legacy: Callable[[str], ParsedValue[M] | None] | None = None,
    expected: str = "",
) -> ParsedValue[M] | ParseFailure:
    """Read ``text`` with ``model``: its JSON, then the ``legacy`` text format (when the
    JSON found does not read: a citation's ``[1]`` in a verdict line, say), then refusal
    detection. Failures start with ``expected`` (by default, what the model asks for in
    words); JSON that only repair could close is ``"truncated"``."""
    expected = expected or describe_output(model)
    found = extract_json(text)
    if found is not None and found.cut:
        return ParseFailure("truncated", "the reply's JSON breaks off before it ends")
    failure: ParseFailure | None = None
    if found is not None:
        notes: list[str] = []
        try:
            value = model.model_validate(found.value, context={**context, "notes": notes})
            return ParsedValue(value, found.method, tuple(notes))
        except ValidationError as exc:
            reason = _failure_text(exc.errors(), found.value)
            failure = ParseFailure("schema", f"{expected}; {reason}")
    read = None if legacy is None else legacy(text)
    if read is not None:
        return read
    if failure is not None:
        return failure
    refusal = detect_refusal(text)
    if refusal is not None:
        return ParseFailure("refusal", refusal)
    return ParseFailure("unparseable", f"{expected}; found no JSON and nothing else usable")


_TYPES = {"string": "a string", "boolean": "true or false", "number": "a number"}


def _kind(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> str:
    if "$ref" in schema:
        schema = defs[str(schema["$ref"]).rsplit("/", 1)[-1]]
    if "enum" in schema:
        return "one of " + ", ".join(repr(v) for v in schema["enum"])
    kind = schema.get("type")
    if kind == "integer":
        low, high = schema.get("minimum"), schema.get("maximum")
        return "an integer" + (f" {low} to {high}" if low is not None and high is not None else "")
    if kind == "array":
        items = schema.get("items", {})
        if "$ref" in items or items.get("type") == "object":
            return f"an array of objects with {_fields(items, defs)}"
        return f"an array of {_kind(items, defs).removeprefix('a ').removeprefix('an ')}s"
    if kind == "object":
        return f"an object with {_fields(schema, defs)}"
    return _TYPES.get(str(kind), "a value")


def _fields(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> str:
    if "$ref" in schema:
        schema = defs[str(schema["$ref"]).rsplit("/", 1)[-1]]
    names = [f"'{name}' ({_kind(field, defs)})" for name, field in schema["properties"].items()]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


@cache
def describe_output(model: type[BaseModel]) -> str:
    """What a prompt's output model asks for, in words: the start of every failure's
    message, so a re-ask tells the judge what to reply."""
    schema = model.model_json_schema()
    return f"expected a JSON object with {_fields(schema, schema.get('$defs', {}))}"


_APOS = "['\u2019]"
_REFUSALS = tuple(
    (what, re.compile(pattern, re.IGNORECASE))
    for what, pattern in (
        ('"I cannot"', rf"\bI\s+(?:cannot|can\s*not|can{_APOS}t)\b"),
        ('"I will not"', rf"\bI\s+(?:will\s+not|won{_APOS}t)\b"),
        ('"I am unable to"', rf"\bI(?:\s+am|{_APOS}m)\s+(?:unable|not\s+able)\s+to\b"),
        ('"I apologize"', r"\bI\s+apologi[sz]e\b"),
        ('"sorry"', r"\bsorry\b"),
        ('"as an AI"', r"\bas\s+an\s+(?:AI|A\.I\.|(?:AI\s+)?language\s+model)\b"),
        (
            '"insufficient information"',
            r"\b(?:insufficient|not\s+enough)\s+(?:information|context|data)\b",
        ),
    )
)


def detect_refusal(text: str) -> str | None:
    """A short reason if ``text`` reads as a refusal or non-answer ("I cannot…", "I won't…",
    "I'm unable to…", "I apologize…", "Sorry…", "As an AI…", "insufficient information…",
    whole words, any case), else ``None``; meaningful once nothing else in it parsed."""
    for what, pattern in _REFUSALS:
        m = pattern.search(text)
        if m is not None:
            left = max(text.rfind(c, 0, m.start()) for c in ".!?\n") + 1
            rights = [i for i in (text.find(c, m.end()) for c in ".!?\n") if i >= 0]
            sentence = " ".join(text[left : min(rights) + 1 if rights else len(text)].split())
            quote = sentence if len(sentence) <= 100 else sentence[:99] + "\u2026"
            return f"the judge refused or gave no answer ({what}): {quote!r}"
    return None
