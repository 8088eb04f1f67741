"""Result records made by hand for the report tests."""

from __future__ import annotations

from typing import Any

from veracity.types import ResultRecord, Status


def rec(  # noqa: PLR0913 - a record's fields, each with its default
    score: float | None,
    *,
    metric: str = "faithfulness",
    sample_id: str = "s",
    system: str | None = None,
    question_type: str | None = None,
    iteration: int = 0,
    status: Status | None = None,
    reason: str = "r",
    details: dict[str, Any] | None = None,
) -> ResultRecord:
    if status is None:
        status = Status.SCORED if score is not None else Status.JUDGE_ERROR
    return ResultRecord(
        sample_id=sample_id,
        system=system,
        question_type=question_type,
        metric=metric,
        iteration=iteration,
        score=score,
        status=status,
        reason=reason,
        details=details or {},
    )


def claim(text: str, verdict: str, reason: str = "", evidence: str = "") -> dict[str, str]:
    return {"claim": text, "verdict": verdict, "reason": reason, "evidence": evidence}


def claims_details(*verdicts: str) -> dict[str, Any]:
    """Faithfulness-like details with one claim per verdict."""
    return {"claims": [claim(f"claim {i}", v) for i, v in enumerate(verdicts)]}
