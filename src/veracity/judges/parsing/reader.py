"""One tolerant reader for a judge's reply, driven by a pydantic model of what it means.

The JSON found in the reply (strict, fenced, embedded, repaired) is validated against a
reading model: key synonyms are ``AliasChoices``, keys are compared ignoring case, spaces
and hyphens, and labels or "8/10"-style numbers are read by ``BeforeValidator``s that note
every coercion. Failing that, the question's legacy text format is tried, then refusal
detection. A validation error, rendered briefly after what the prompt's output model
expects, is the failure's message: the text a re-ask shows the judge.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Generic, TypeVar

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    model_validator,
)

from veracity.judges.parsing._text import REASON_KEYS, as_text, describe_json, key_of
from veracity.judges.parsing.json_extract import extract_json
from veracity.judges.parsing.outcomes import ParseFailure
from veracity.judges.parsing.parsed import ParsedValue
from veracity.judges.parsing.refusal import detect_refusal

__all__ = [
    "Reading",
    "Reason",
    "ReplyModel",
    "bare",
    "describe_output",
    "note",
    "synonyms",
    "written",
]

M = TypeVar("M", bound="ReplyModel")
T = TypeVar("T")


class ReplyModel(BaseModel):
    """What a reply (or one object in it) means, read leniently: keys are compared in
    :func:`key_of` form, a field's synonyms are its ``AliasChoices``, keys it does not
    name are ignored."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    @model_validator(mode="before")
    @classmethod
    def _loose(cls, data: object) -> object:
        return _loose_keys(data) if isinstance(data, Mapping) else data

    @classmethod
    def given(cls, name: str, data: Mapping[Any, object]) -> tuple[str, object] | None:
        """The key (as written) and value field ``name`` is read from in ``data``, the
        first of its synonyms found; ``None`` when ``data`` has none of them."""
        alias = cls.model_fields[name].validation_alias
        keys = alias.choices if isinstance(alias, AliasChoices) else [alias or name]
        written: dict[str, tuple[str, object]] = {}
        for key, value in data.items():
            written.setdefault(key_of(str(key)), (str(key), value))  # the first spelling wins
        return next((written[str(k)] for k in keys if str(k) in written), None)

    @classmethod
    def keys(cls, name: str) -> tuple[str, ...]:
        """Field ``name``'s synonyms, for the refiners that find a value in the raw text."""
        alias = cls.model_fields[name].validation_alias
        return tuple(map(str, alias.choices)) if isinstance(alias, AliasChoices) else (name,)


def synonyms(*names: str) -> AliasChoices:
    """The keys a field may come under (each of ``names`` may hold several, space-separated),
    first found wins, compared in :func:`key_of` form."""
    return AliasChoices(*(key for given in names for key in given.split()))


def written(names: str) -> Any:
    """A field taken as written from the first of ``names`` found, ``None`` when absent
    (and then not in ``model_fields_set``)."""
    return Field(None, validation_alias=synonyms(names))


def note(info: ValidationInfo, text: str) -> None:
    """Record a coercion made while reading, for the result's notes."""
    notes = info.context.get("notes") if isinstance(info.context, dict) else None
    if isinstance(notes, list):
        notes.append(text)


# A reason as the judge wrote it: a string, or anything else as one line of text.
Reason = Annotated[str, BeforeValidator(as_text), Field(validation_alias=synonyms(REASON_KEYS))]


def _loose_keys(value: Mapping[Any, object]) -> dict[str, object]:
    loose: dict[str, object] = {}
    for key, item in value.items():
        loose.setdefault(key_of(str(key)), item)  # the first of two spellings wins
    return loose


def _failure_text(errors: Sequence[Mapping[str, Any]], given: object) -> str:
    """The first problem in words; a field missing inside several objects ("no score for
    'a', 'b'") names them all."""
    first = errors[0]
    loc = tuple(str(part) for part in first["loc"])
    if first["type"] == "missing" and len(loc) == 1:
        return f"got {describe_json(given)}"
    if first["type"] == "missing":
        owners = [
            f"'{error['loc'][0]}'"
            for error in errors
            if error["type"] == "missing" and tuple(map(str, error["loc"]))[1:] == loc[1:]
        ]
        return f"no {'.'.join(loc[1:])} for {', '.join(owners)}"
    message = str(first["msg"]).removeprefix("Value error, ")
    if first["type"] == "value_error":
        return message if len(loc) <= 1 else f"{loc[0]}: {message}"
    return f"'{'.'.join(loc)}': {message}"


def _is_weak(value: object, method: str) -> bool:
    """JSON found in prose that may be a stray bracket (``[1]``) rather than the answer: not
    an object, nor an array holding one."""
    if method not in ("embedded", "repaired") or isinstance(value, dict):
        return False
    return not (isinstance(value, list) and any(isinstance(v, dict) for v in value))


def _drive(
    text: str,
    from_json: Callable[[object, str], T | ParseFailure],
    from_text: Callable[[str], T | ParseFailure | None],
    expected: str,
) -> T | ParseFailure:
    """Parse ``text``: JSON, then the legacy text format, then refusal detection.

    ``from_text`` returns ``None`` when the text has nothing of its format. JSON that may
    be a stray bracket in prose (``[1]``) is tried after the legacy format. When nothing
    succeeds, the first failure wins (JSON's, then the legacy format's).
    """
    found = extract_json(text)
    failures: list[ParseFailure] = []
    weak = found is not None and _is_weak(found.value, found.method)
    if found is not None and not weak:
        result = from_json(found.value, found.method)
        if not isinstance(result, ParseFailure):
            return result
        failures.append(result)
    legacy = from_text(text)
    if isinstance(legacy, ParseFailure):
        failures.append(legacy)
    elif legacy is not None:
        return legacy
    if found is not None and weak:
        result = from_json(found.value, found.method)
        if not isinstance(result, ParseFailure):
            return result
        failures.append(result)
    if failures:
        return failures[0]
    refusal = detect_refusal(text)
    if refusal is not None:
        return ParseFailure("refusal", refusal)
    return ParseFailure("unparseable", f"{expected}; found no JSON and nothing else usable")


def _no_text_format(_: str) -> None:
    return None


@dataclass(frozen=True)
class Reading(Generic[M, T]):
    """How one judge question's reply is read.

    ``shape`` turns a JSON value that is not the object the model reads (a bare label, a
    list of questions) into one, noting it; ``value`` builds the result from the model;
    ``text`` reads the question's legacy text format (``None`` when the text has none of
    it), usually through :meth:`validated`.
    """

    model: type[M]
    value: Callable[[M], T]
    expected: str
    shape: Callable[[object, list[str]], object] = lambda value, _: value
    text: Callable[[str], ParsedValue[T] | ParseFailure | None] = _no_text_format
    # What the validators may need to know beyond the reply (how many chunks were asked).
    context: Mapping[str, object] = field(default_factory=dict)

    def validated(
        self, data: Mapping[Any, object], method: str, notes: list[str]
    ) -> ParsedValue[T] | ParseFailure:
        """The result of ``data``, an object of the model's fields, or why there is none."""
        try:
            context = {**self.context, "notes": notes}
            read = self.model.model_validate(data, context=context)
        except ValidationError as exc:
            return ParseFailure("schema", f"{self.expected}; {_failure_text(exc.errors(), data)}")
        return ParsedValue(self.value(read), method, tuple(notes))

    def from_json(self, found: object, method: str) -> ParsedValue[T] | ParseFailure:
        notes: list[str] = []
        data = self.shape(found, notes)
        if not isinstance(data, dict):
            return ParseFailure("schema", f"{self.expected}; got {describe_json(found)}")
        return self.validated(data, method, notes)

    def __call__(self, reply: str) -> ParsedValue[T] | ParseFailure:
        """Read ``reply``: its JSON, then the legacy text format, then refusal detection."""
        return _drive(reply, self.from_json, self.text, self.expected)


def bare(field: str, accepts: Callable[[object], bool]) -> Callable[[object, list[str]], object]:
    """A :attr:`Reading.shape` reading a bare JSON value that ``accepts`` as ``field``."""

    def shape(value: object, notes: list[str]) -> object:
        if isinstance(value, dict) or not accepts(value):
            return value
        notes.append("the reply is a bare value")
        return {field: value}

    return shape


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


def describe_output(model: type[BaseModel]) -> str:
    """What a prompt's output model asks for, in words: the start of every failure's
    message, so a re-ask tells the judge what to reply."""
    schema = model.model_json_schema()
    return f"expected a JSON object with {_fields(schema, schema.get('$defs', {}))}"
