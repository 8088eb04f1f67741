"""Results as a flat table: one row per (sample, system, metric, iteration), the shape of
``EvaluationResult.to_pandas()`` and of ``veracity export``."""

from __future__ import annotations

import types
import typing
from typing import Any, Final

from pydantic import BaseModel

from veracity.types import ResultRecord, Usage

_LEADING = ("sample_id", "system", "metric", "iteration", "score", "status", "reason",
            "question_type")  # fmt: skip
_NESTED = ("usage", "details")
# The usage's counts; its breakdown by model (a hybrid judge's) stays in results.jsonl.
_USAGE_COUNTS = tuple(name for name, f in Usage.model_fields.items() if f.annotation is int)

#: The columns of a flat result, in order: the keys and the outcome, the question type,
#: the record's other fields (latency, cost), the usage counts as ``usage_*``, and
#: ``details`` last.
RESULT_COLUMNS: Final = (
    *_LEADING,
    *(name for name in ResultRecord.model_fields if name not in (*_LEADING, *_NESTED)),
    *(f"usage_{name}" for name in _USAGE_COUNTS),
    "details",
)


def _scalar(model: type[BaseModel], name: str) -> type:
    """The value type of a field: ``int``, ``float``, or ``str`` for any other (text, a
    status, ``details`` as JSON text)."""
    annotation = model.model_fields[name].annotation
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        annotation = next(arg for arg in typing.get_args(annotation) if arg is not type(None))
    return int if annotation is int else float if annotation is float else str


#: Each column's value type (every column may be empty, ``None``).
COLUMN_TYPES: Final[dict[str, type]] = {
    column: _scalar(Usage, column.removeprefix("usage_"))
    if column.startswith("usage_")
    else _scalar(ResultRecord, column)
    for column in RESULT_COLUMNS
}


def flat_result(record: ResultRecord) -> dict[str, Any]:
    """``record`` as one row of :data:`RESULT_COLUMNS` (``details`` stays a dict)."""
    row = record.model_dump(mode="json", exclude={"usage"})
    row |= {f"usage_{name}": getattr(record.usage, name) for name in _USAGE_COUNTS}
    return {column: row[column] for column in RESULT_COLUMNS}
