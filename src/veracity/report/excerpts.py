"""What the analysis keeps of a low-scoring result: its key, score, reason, and what failed.

Texts are cut to ``MAX_TEXT`` characters and at most ``MAX_CLAIMS`` failing claims are
kept, so a worst-items list stays small whatever the judge wrote.
"""

from __future__ import annotations

from typing import Any

from veracity.types import ResultRecord, Verdict

MAX_TEXT = 500
MAX_CLAIMS = 20
# Where metrics list what they checked: the answer's claims (faithfulness) and the
# reference's statements (context recall).
CLAIM_LISTS = (("claims", "claim", "claim"), ("statements", "statement", "statement"))


def cut(value: object, limit: int = MAX_TEXT) -> str:
    text = "" if value is None else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def failing_claims(details: dict[str, Any]) -> tuple[list[dict[str, str]], int]:
    """The claims (or reference statements) not supported, and how many more were cut."""
    found: list[dict[str, str]] = []
    for key, text_key, kind in CLAIM_LISTS:
        items = details.get(key)
        if not isinstance(items, list):
            continue
        for item in items:
            if not isinstance(item, dict):
                continue
            # A citation metric's claim fails on its attribution: supported, but cited to
            # another passage (or citing none), is "misattributed".
            failed = item.get("attribution", item.get("verdict"))
            if failed in (Verdict.SUPPORTED.value, "cited"):
                continue
            found.append(
                {
                    "kind": kind,
                    "claim": cut(item.get(text_key)),
                    "verdict": cut(failed, 40),
                    "reason": cut(item.get("reason")),
                    "evidence": cut(item.get("evidence")),
                }
            )
    return found[:MAX_CLAIMS], max(0, len(found) - MAX_CLAIMS)


def failing_dimensions(details: dict[str, Any]) -> list[dict[str, Any]]:
    """The rubric dimensions scored below their minimum."""
    dimensions = details.get("dimensions")
    if not isinstance(dimensions, list):
        return []
    return [
        {
            "name": cut(d.get("name"), 100),
            "score": d.get("score"),
            "minimum": d.get("minimum"),
            "reasoning": cut(d.get("reasoning")),
        }
        for d in dimensions
        if isinstance(d, dict)
        and isinstance(d.get("score"), int | float)
        and isinstance(d.get("minimum"), int | float)
        and d["score"] < d["minimum"]
    ]


def worst_entry(record: ResultRecord, failing: bool) -> dict[str, Any]:
    claims, more = failing_claims(record.details)
    entry: dict[str, Any] = {
        "sample_id": record.sample_id,
        "system": record.system,
        "question_type": record.question_type,
        "iteration": record.iteration,
        "score": record.score,
        "status": record.status.value,
        "failing": failing,
        "reason": cut(record.reason),
        "failing_claims": claims,
    }
    if more:
        entry["more_failing_claims"] = more
    dimensions = failing_dimensions(record.details)
    if dimensions:
        entry["failing_dimensions"] = dimensions
    if "grade" in record.details:
        entry["grade"] = cut(record.details["grade"], 10)
    if "classification" in record.details:
        entry["classification"] = cut(record.details["classification"], 40)
    return entry
