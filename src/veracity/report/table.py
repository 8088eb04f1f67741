"""Results as a flat table: one row per (sample, system, metric, iteration), the shape of
``EvaluationResult.to_pandas()`` and of ``veracity export``."""

from __future__ import annotations

from typing import Any, Final

from veracity.types import ResultRecord, Usage

_LEADING = ("sample_id", "system", "metric", "iteration", "score", "status", "reason",
            "question_type")  # fmt: skip
_NESTED = ("usage", "details")

#: The columns of a flat result, in order: the keys and the outcome, the question type,
#: the record's other fields (latency, cost), the usage counts as ``usage_*``, and
#: ``details`` last.
RESULT_COLUMNS: Final = (
    *_LEADING,
    *(name for name in ResultRecord.model_fields if name not in (*_LEADING, *_NESTED)),
    *(f"usage_{name}" for name in Usage.model_fields),
    "details",
)


def flat_result(record: ResultRecord) -> dict[str, Any]:
    """``record`` as one row of :data:`RESULT_COLUMNS` (``details`` stays a dict)."""
    row = record.model_dump(mode="json", exclude={"usage"})
    row |= {f"usage_{name}": value for name, value in record.usage.model_dump().items()}
    return {column: row[column] for column in RESULT_COLUMNS}
