"""What the analysis keeps of a low-scoring result: its key, score, reason, and what failed.

Texts are cut to ``MAX_TEXT`` characters and at most ``MAX_CLAIMS`` failing claims are
kept, so a worst-items list stays small whatever the judge wrote.
"""

from __future__ import annotations

from typing import Any

from veracity.types import Attribution, ResultRecord, Verdict

MAX_TEXT = 500
MAX_CLAIMS = 20
# Where metrics list what they checked: the answer's claims (faithfulness) and the
# reference's statements (context recall).
CLAIM_LISTS = (("claims", "claim", "claim"), ("statements", "statement", "statement"))


def cut(value: object, limit: int = MAX_TEXT) -> str:
    text = "" if value is None else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def claim_outcome(item: dict[str, Any]) -> str:
    """How a listed claim (or reference statement) stands: its verdict, except that a
    citation metric's supported claim fails on its attribution — ``misattributed``
    (supported only by a passage it does not cite), or ``unsupported`` (its support found
    in no passage). A statement judged without a call (no contexts) says only whether it
    is attributed."""
    verdict = item.get("verdict")
    if verdict is None:
        return Verdict.SUPPORTED.value if item.get("attributed") else Verdict.NOT_ENOUGH_INFO.value
    attribution = item.get("attribution")
    if verdict == Verdict.SUPPORTED.value and attribution not in (None, Attribution.CITED.value):
        return str(attribution)
    return str(verdict)


def failing_claims(
    details: dict[str, Any], limit: int | None = MAX_CLAIMS
) -> tuple[list[dict[str, str]], int]:
    """The claims (or reference statements) not supported, at most ``limit`` of them, and
    how many more were cut."""
    found: list[dict[str, str]] = []
    for key, text_key, kind in CLAIM_LISTS:
        items = details.get(key)
        if not isinstance(items, list):
            continue
        for item in items:
            if not isinstance(item, dict):
                continue
            failed = claim_outcome(item)
            if failed == Verdict.SUPPORTED.value:
                continue
            entry = {
                "kind": kind,
                "claim": cut(item.get(text_key)),
                "verdict": cut(failed, 40),
                "reason": cut(item.get("reason")),
                "evidence": cut(item.get("evidence")),
            }
            if failed == Attribution.MISATTRIBUTED.value:
                entry["citations"] = (
                    f"cites {_passages(item.get('cites'))}, "
                    f"supported by {_passages(item.get('supported_by'))}"
                )
            elif "attribution" in item:  # whatever its evidence was found in, not supported
                entry["citations"] = f"cites {_passages(item.get('cites'))}; no passage supports it"
            found.append(entry)
    if limit is None:
        return found, 0
    return found[:limit], max(0, len(found) - limit)


def _passages(indices: object) -> str:
    """Passages as the answer numbers them: "[1], [3]", or "nothing"."""
    if not isinstance(indices, list) or not indices:
        return "nothing"
    return ", ".join(f"[{cut(i, 12)}]" for i in indices)


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
