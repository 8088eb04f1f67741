"""Output models that read a judge's reply leniently, while asking for it strictly.

A prompt's output model is both the JSON schema the judge is asked for and what reads the
reply: keys compared ignoring case, spaces, hyphens and underscores, a field's synonyms
its ``AliasChoices`` (its own name first), labels and numbers read by ``BeforeValidator``s
that note every coercion, other keys ignored."""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Mapping
from typing import Annotated, Any, TypeVar, get_origin

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
from pydantic_core import PydanticUndefined

from veracity.types.results import Verdict

T = TypeVar("T")


def _as_asked(schema: dict[str, Any]) -> None:
    """The schema the judge is asked for: every field required, whatever the reader forgives."""
    schema["required"] = list(schema.get("properties", {}))
    for field in schema.get("properties", {}).values():
        field.pop("default", None)


def compact(name: str) -> str:
    """A key or name compared ignoring case, spaces, hyphens and underscores."""
    return words(name).replace(" ", "")


def synonyms(names: str, default: Any = PydanticUndefined, **constraints: Any) -> Any:
    """A field that may come under any of ``names`` (space-separated, its own name first,
    compared in :func:`compact` form), the first found winning."""
    return Field(default, validation_alias=AliasChoices(*names.split()), **constraints)


def note(info: ValidationInfo, text: str) -> None:
    """Record a coercion made while reading, for the result's notes."""
    notes = info.context.get("notes") if isinstance(info.context, dict) else None
    if isinstance(notes, list):
        notes.append(text)


def context(info: ValidationInfo, name: str, default: Any = None) -> Any:
    """What the reader passed beside the reply (how many chunks were asked, say)."""
    return info.context.get(name, default) if isinstance(info.context, dict) else default


class Reply(BaseModel):
    """What a reply (or one object in it) means; a bare array is the model's only array
    field."""

    # Extra keys never reach validation (only the fields are read), so "forbid" only says
    # in the schema that the judge may write nothing else.
    model_config = ConfigDict(extra="forbid", json_schema_extra=_as_asked)

    @model_validator(mode="before")
    @classmethod
    def _read_loosely(cls, data: object) -> object:
        arrays = [n for n, f in cls.model_fields.items() if get_origin(f.annotation) is list]
        if isinstance(data, list) and len(arrays) == 1:
            data = {arrays[0]: data}
        if not isinstance(data, Mapping):
            return data
        # Keys compared in compact form, the first of two spellings winning.
        loose = {compact(str(k)): v for k, v in reversed(list(data.items()))}
        given = {
            name: next((loose[compact(k)] for k in cls.keys(name) if compact(k) in loose), None)
            for name in cls.model_fields
        }
        return {name: value for name, value in given.items() if value is not None}

    @classmethod
    def keys(cls, name: str) -> tuple[str, ...]:
        """Field ``name``'s synonyms, for finding its value in the raw text."""
        alias = cls.model_fields[name].validation_alias
        return tuple(map(str, alias.choices)) if isinstance(alias, AliasChoices) else (name,)


R = TypeVar("R", bound=Reply)


def read_items(
    model: type[R], items: object, info: ValidationInfo, name: str
) -> tuple[list[R], list[str]]:
    """The items of array ``name`` that ``model`` reads, and why each other one was skipped
    (noted too)."""
    if not isinstance(items, list):
        raise ValueError(f"'{name}' is {describe_json(items)}, not an array")
    read: list[R] = []
    skipped: list[str] = []
    for n, item in enumerate(items, 1):
        try:
            read.append(model.model_validate(item, context=info.context))
        except ValidationError as exc:
            error = exc.errors()[0]
            why = str(error["msg"]).removeprefix("Value error, ")
            if error["type"] == "missing":
                why = f"it has no {str(error['loc'][0])!r}"
            elif error["type"] == "model_type":
                why = "not an object"
            skipped.append(f"item {n}: {why}")
            note(info, f"skipped {skipped[-1]}")
    return read, skipped


def describe_json(value: object) -> str:
    """A JSON value's shape in words, for failure messages."""
    if isinstance(value, dict):
        keys = ", ".join(repr(str(k)) for k in list(value)[:5])
        more = ", \u2026" if len(value) > 5 else ""
        return f"a JSON object with keys {keys}{more}" if value else "an empty JSON object"
    if isinstance(value, list):
        return f"a JSON array of {len(value)} item{'' if len(value) == 1 else 's'}"
    kinds = {str: "a JSON string", bool: "a JSON boolean", int: "a JSON number"}
    kinds |= {float: "a JSON number", type(None): "JSON null"}
    return kinds.get(type(value), f"a {type(value).__name__}")


def as_text(value: object) -> str:
    """A JSON field (reason, evidence) as one line of text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return " | ".join(p for p in map(as_text, value) if p)
    return json.dumps(value, ensure_ascii=False)


Text = Annotated[str, BeforeValidator(as_text)]
REASONS = "reason reasoning explanation"


# ---------------------------------------------------------------- labels and numbers

_NON_WORD = re.compile(r"[\W_]+")


def words(text: str) -> str:
    """Lowercase words only: ``"Not-Relevant!"`` -> ``"not relevant"``."""
    return _NON_WORD.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def label_table(labels: Mapping[T, tuple[str, ...]]) -> dict[str, T]:
    """The one form of a label table: each way of writing a value, in :func:`words` form."""
    return {words(label): value for value, written in labels.items() for label in written}


def read_label(raw: object, table: Mapping[str, T]) -> T | None:
    """Look a label up in ``table``: text in any case or wrapping, booleans, 0 and 1."""
    if isinstance(raw, bool):
        raw = "true" if raw else "false"
    elif isinstance(raw, int | float):
        if raw not in (0, 1):
            return None
        raw = str(int(raw))
    if not isinstance(raw, str):
        return None
    key = words(raw)
    return table.get(key[0] if key in ("1 0", "0 0") else key)  # "1.0" / "0.0"


YES = ("yes", "y", "true", "1")
NO = ("no", "n", "false", "0")

VERDICTS = label_table(
    {
        Verdict.SUPPORTED: (
            *("supported", "support", "supports", "yes", "true", "1", "entailed", "entailment"),
            *("entails", "faithful", "attributable", "correct", "pass", "valid", "verified"),
            "fully supported",
        ),
        Verdict.CONTRADICTED: (
            *("contradicted", "contradiction", "contradicts", "contradictory", "refuted"),
            *("refutes", "conflict", "conflicting", "inconsistent"),
        ),
        Verdict.NOT_ENOUGH_INFO: (
            *("not_enough_info", "not enough info", "not enough information", "nei"),
            *("neutral", "no", "false", "0", "unsupported", "not supported", "unverifiable"),
            *("unknown", "cannot be determined", "insufficient information"),
            *("partially supported", "partial"),
        ),
    }
)


def normalise_verdict(raw: object) -> Verdict | None:
    """A judge's label as a :class:`Verdict` (any case and wrapping, booleans, 0/1), or
    ``None`` if it is not a known label."""
    return raw if isinstance(raw, Verdict) else read_label(raw, VERDICTS)


_NUMBER = re.compile(r"^([-+]?(?:\d+(?:\.\d+)?|\.\d+))\s*(?:/\s*(\d+(?:\.\d+)?))?$")


def read_score(raw: object, info: ValidationInfo, what: str, top: int) -> float:
    """A finite number from a JSON number or a string (``"85"``); ``"x/y"`` is put on a
    scale of ``top`` (``"8/10"`` on 5 is 4.0), noted."""
    if isinstance(raw, int | float) and not isinstance(raw, bool) and math.isfinite(raw):
        return raw
    text = (
        unicodedata.normalize("NFKC", raw).strip(" *_`'\"").rstrip(".")
        if isinstance(raw, str)
        else ""
    )
    m = _NUMBER.match(text)
    if m is None or (m[2] is not None and float(m[2]) == 0):
        raise ValueError(f"the {what} {preview(as_text(raw))} is not a number")
    if m[2] is None:
        return float(m[1])
    value = float(m[1]) / float(m[2]) * top
    if float(m[2]) != top:
        note(info, f"read the {what} {text!r} as {value:g}/{top}")
    return value


def preview(text: str, limit: int = 60) -> str:
    """A short one-line quote of ``text`` for notes and messages."""
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "\u2026")
