"""Turn one parsed row (a dict from any format) into samples, or into an error message."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from veracity.dataset.columns import DEFAULT_COLUMNS, Columns
from veracity.dataset.fields import ANSWERS_FIELD, a_json_type
from veracity.dataset.ids import stable_sample_id
from veracity.types.sample import ROLES, Sample, Turn


class RowProblem(Exception):
    """Why a row cannot become a sample; the message is shown to the user as is."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _as_id(name: str, value: object) -> str | None:
    if isinstance(value, str):
        return value or None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return str(int(value)) if value.is_integer() else repr(value)
    raise RowProblem(f"field '{name}' must be a string or a number, got {a_json_type(value)}")


def _as_str(name: str, value: object) -> str:
    if not isinstance(value, str):
        raise RowProblem(f"field '{name}' must be a string, got {a_json_type(value)}")
    return value


def _as_contexts(name: str, value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        raise RowProblem(f"field '{name}' must be a list of strings, got {a_json_type(value)}")
    for index, item in enumerate(value, start=1):
        if not isinstance(item, str):
            raise RowProblem(
                f"field '{name}' must be a list of strings, but item {index} is {a_json_type(item)}"
            )
    return value


def _as_turn(name: str, index: int, item: object) -> Turn:
    if isinstance(item, str):
        return Turn(content=item)
    where = f"field '{name}' item {index}"
    if not isinstance(item, dict):
        raise RowProblem(
            f"{where} must be a string or a {{role, content}} object, got {a_json_type(item)}"
        )
    if "content" not in item:
        raise RowProblem(f"{where} has no 'content'")
    content, role = item["content"], item.get("role")
    if not isinstance(content, str):
        raise RowProblem(f"{where} 'content' must be a string, got {a_json_type(content)}")
    if role is not None and role not in ROLES:
        shown = repr(role) if isinstance(role, str) else a_json_type(role)
        expected = ", ".join(ROLES[:-1]) + f" or {ROLES[-1]}"
        raise RowProblem(f"{where} has an unknown role {shown} (expected {expected})")
    # Other keys of a turn (a name, a timestamp) are not part of it.
    return Turn(role=role, content=content)


def _as_history(name: str, value: object) -> tuple[Turn, ...]:
    # A lone string is one turn, as a lone string is one context.
    if isinstance(value, str):
        return (Turn(content=value),)
    if not isinstance(value, list | tuple):
        raise RowProblem(
            f"field '{name}' must be a list of turns (strings or {{role, content}} objects), "
            f"got {a_json_type(value)}"
        )
    return tuple(_as_turn(name, index, item) for index, item in enumerate(value, start=1))


def _as_metadata(name: str, value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RowProblem(f"field '{name}' must be an object, got {a_json_type(value)}")
    return value


_CONVERT: dict[str, Callable[[str, object], object]] = {
    "id": _as_id,
    "question": _as_str,
    "contexts": _as_contexts,
    "answer": _as_str,
    "reference": _as_str,
    "history": _as_history,
    "question_type": _as_str,
    "system": _as_str,
    "metadata": _as_metadata,
}


def _as_answers(name: str, value: object) -> dict[str, str]:
    if not isinstance(value, dict):
        raise RowProblem(
            f"field '{name}' must be an object {{system: answer}}, got {a_json_type(value)}"
        )
    if not value:
        raise RowProblem(f"field '{name}' is empty")
    for system, answer in value.items():
        if not system:
            raise RowProblem(f"field '{name}' has an empty system name")
        if not isinstance(answer, str):
            raise RowProblem(
                f"field '{name}' answer of system '{system}' must be a string, "
                f"got {a_json_type(answer)}"
            )
    return value


def describe_validation_error(exc: ValidationError) -> str:
    """A one-line summary of a pydantic error that names the field(s), without the dump."""
    parts = []
    for error in exc.errors(include_url=False):
        loc = ".".join(str(part) for part in error["loc"]) or "row"
        parts.append(f"field '{loc}': {error['msg']}")
    return "; ".join(parts) or "invalid sample"


@dataclass
class _Fields:
    """The canonical fields of one row, converted, with the name each came from."""

    names: dict[str, str] = field(default_factory=dict)
    extras: dict[str, object] = field(default_factory=dict)
    id: str | None = None
    question: str | None = None
    contexts: list[str] = field(default_factory=list)
    answer: str | None = None
    reference: str | None = None
    history: tuple[Turn, ...] = ()
    question_type: str | None = None
    system: str | None = None
    metadata: dict[str, Any] | None = None
    answers: dict[str, str] | None = None


def _collect(row: Mapping[str, object], columns: Columns) -> _Fields:
    """Split a row into canonical fields and extra fields; aliases must agree."""
    fields = _Fields()
    for key, raw in row.items():
        canonical = columns.field_of.get(key)
        if canonical is None:
            fields.extras[key] = raw
            continue
        if raw is None:
            continue
        if canonical == ANSWERS_FIELD:
            fields.names[canonical] = key
            fields.answers = _as_answers(key, raw)
            continue
        value = _CONVERT[canonical](key, raw)
        if value is None:
            continue
        first = fields.names.get(canonical)
        if first is not None:
            if getattr(fields, canonical) != value:
                raise RowProblem(
                    f"fields '{first}' and '{key}' both give the {canonical} but differ"
                )
            continue
        fields.names[canonical] = key
        setattr(fields, canonical, value)
    return fields


def _merge_metadata(explicit: dict[str, Any] | None, extras: dict[str, object]) -> dict[str, Any]:
    merged: dict[str, Any] = dict(explicit or {})
    for key, value in extras.items():
        if key in merged and merged[key] != value:
            raise RowProblem(f"field '{key}' is also in 'metadata' with a different value")
        merged.setdefault(key, value)
    return merged


def _samples(row: Mapping[str, object], columns: Columns) -> list[Sample]:
    fields = _collect(row, columns)
    if fields.question is None:
        raise RowProblem(f"missing required field {columns.named('question')}")
    targets: list[tuple[str | None, str]]
    if fields.answers is not None:
        for clash in ("answer", "system"):
            if clash in fields.names:
                raise RowProblem(
                    f"row has both '{fields.names[clash]}' and '{fields.names[ANSWERS_FIELD]}'"
                )
        targets = list(fields.answers.items())
    elif fields.answer is None:
        raise RowProblem(f"missing required field {columns.named('answer')}")
    else:
        targets = [(fields.system, fields.answer)]

    metadata = _merge_metadata(fields.metadata, fields.extras)
    samples = []
    for system, answer in targets:
        sample_id = fields.id or stable_sample_id(
            fields.question, answer, fields.contexts, system, fields.history
        )
        try:
            sample = Sample(
                id=sample_id,
                question=fields.question,
                contexts=tuple(fields.contexts),
                answer=answer,
                reference=fields.reference,
                history=fields.history,
                question_type=fields.question_type,
                system=system,
                metadata=dict(metadata),
            )
        except ValidationError as exc:
            raise RowProblem(describe_validation_error(exc)) from exc
        samples.append(sample)
    return samples


def normalize_row(row: object, columns: Columns = DEFAULT_COLUMNS) -> list[Sample] | str:
    """The samples a parsed row gives (several when it has ``answers``), or why it can't.

    ``columns`` says which column holds which field. A ``Sample`` (given in memory) is
    already normal.
    """
    if isinstance(row, Sample):
        return [row]
    if not isinstance(row, dict):
        return f"expected a JSON object, got {a_json_type(row)}"
    try:
        return _samples(row, columns)
    except RowProblem as exc:
        return exc.message
