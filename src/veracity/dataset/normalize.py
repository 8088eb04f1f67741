"""Turn one parsed row (a dict from any format) into samples, or into an error message."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from veracity.dataset.citations import read_citations
from veracity.dataset.columns import DEFAULT_COLUMNS, Columns
from veracity.dataset.fields import ANSWERS_FIELD, a_json_type
from veracity.dataset.ids import stable_sample_id
from veracity.dataset.turns import TurnProblem, read_turns, split_conversation
from veracity.types.sample import Citation, Sample, Turn


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


def _as_history(name: str, value: object) -> tuple[Turn, ...]:
    try:
        return read_turns(name, value)
    except TurnProblem as exc:
        raise RowProblem(str(exc)) from None


def _as_question(name: str, value: object) -> str | tuple[Turn, ...]:
    """The question, or a whole conversation ending in it (ragas' multi-turn input)."""
    if isinstance(value, list):
        return _as_history(name, value)
    return _as_str(name, value)


def _as_citations(name: str, value: object) -> tuple[Citation, ...]:
    try:
        return read_citations(name, value)
    except ValueError as exc:
        raise RowProblem(str(exc)) from None


def _as_metadata(name: str, value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RowProblem(f"field '{name}' must be an object, got {a_json_type(value)}")
    return value


_CONVERT: dict[str, Callable[[str, object], object]] = {
    "id": _as_id,
    "question": _as_question,
    "contexts": _as_contexts,
    "answer": _as_str,
    "reference": _as_str,
    "history": _as_history,
    "citations": _as_citations,
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
    question: str | tuple[Turn, ...] | None = None
    contexts: list[str] = field(default_factory=list)
    answer: str | None = None
    reference: str | None = None
    history: tuple[Turn, ...] = ()
    citations: tuple[Citation, ...] = ()
    question_type: str | None = None
    system: str | None = None
    metadata: dict[str, Any] | None = None
    answers: dict[str, str] | None = None


def _reached(row: Mapping[str, object], columns: Columns) -> dict[str, object]:
    """The mapped columns that name a key inside the row's objects (``meta.turns``), where
    the row has no column of that very name."""
    found: dict[str, object] = {}
    for column in columns.mapped.values():
        if column in row or "." not in column:
            continue
        value: object = row
        for part in column.split("."):
            if not isinstance(value, Mapping) or part not in value:
                break
            value = value[part]
        else:
            found[column] = value
    return found


def _collect(row: Mapping[str, object], columns: Columns) -> _Fields:
    """Split a row into canonical fields and extra fields; aliases must agree."""
    fields = _Fields()
    for key, raw in {**row, **_reached(row, columns)}.items():
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


def _unfold_conversation(fields: _Fields) -> str | None:
    """The question; a conversation given as the question is unfolded: its last user turn
    is the question, the turns before it the history and, when no answer is given, the
    turns after it the answer."""
    if not isinstance(fields.question, tuple):
        return fields.question
    name = fields.names["question"]
    if "history" in fields.names:
        raise RowProblem(
            f"field '{name}' is a whole conversation and '{fields.names['history']}' gives "
            "its history too: give one"
        )
    try:
        fields.history, question, after = split_conversation(name, fields.question)
    except TurnProblem as exc:
        raise RowProblem(str(exc)) from None
    if fields.answer is None and fields.answers is None and after:
        fields.answer = "\n".join(turn.content for turn in after if turn.role != "tool")
        fields.names["answer"] = name
    return question


def _samples(row: Mapping[str, object], columns: Columns) -> list[Sample]:
    fields = _collect(row, columns)
    question = _unfold_conversation(fields)
    if question is None:
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
            question, answer, fields.contexts, system, fields.history
        )
        try:
            sample = Sample(
                id=sample_id,
                question=question,
                contexts=tuple(fields.contexts),
                answer=answer,
                reference=fields.reference,
                history=fields.history,
                citations=fields.citations,
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
