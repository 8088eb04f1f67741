"""The signals a calibration reads from one result: the judge's own (score, claim
probabilities, claims, evidence not found) and the cheap local ones every faithfulness
result carries (:mod:`veracity.metrics.local_signals`).

A metric other than faithfulness has one signal, its score. A faithfulness result
written before local signals existed has them computed here from its sample, when the
sample is at hand.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from veracity.metrics.local_signals import local_signals, yes_no_reply
from veracity.prompts import is_courtesy
from veracity.types import ResultRecord, Sample

SCORE_ONLY: tuple[str, ...] = ("score",)
FAITHFULNESS_SIGNALS: tuple[str, ...] = (
    "score",
    "min_claim_p",
    "mean_claim_p",
    "log_claims",
    "no_claims",
    "evidence_not_found_share",
    "answer_overlap",
    "min_claim_overlap",
    "mean_claim_overlap",
    "missing_name_share",
    "missing_number_share",
    "negation_flip_share",
    "yes_no_reply",
    "abstention",
)


class MissingSignals(ValueError):
    """A result lacks signals a calibration needs (and its sample is not at hand)."""


def signal_names(metric: str) -> tuple[str, ...]:
    return FAITHFULNESS_SIGNALS if metric == "faithfulness" else SCORE_ONLY


def _claim_p(claim: Mapping[str, Any]) -> float:
    p = claim.get("p_supported")
    if isinstance(p, int | float):
        return float(p)
    return 1.0 if claim.get("verdict") == "supported" else 0.0


def _local(record: ResultRecord, sample: Sample | None) -> Mapping[str, Any]:
    found = record.details.get("local_signals")
    if isinstance(found, Mapping):
        return found
    if sample is None:
        raise MissingSignals(
            f"result {record.sample_id!r} ({record.metric}) has no local signals "
            "(a run from an older version): give its dataset so they can be computed"
        )
    claims = [str(c.get("claim", "")) for c in _claims(record)]
    return local_signals(sample.answer, claims, sample.contexts, sample.question)[0]


def _yes_no_reply(
    record: ResultRecord, local: Mapping[str, Any], sample: Sample | None
) -> dict[str, float]:
    """An answer with claims is no bare yes or no; for one without, the signal written
    with the result, or computed from its sample (a result written before the signal);
    without either, none (a calibration reading it says so)."""
    if _claims(record):
        return {"yes_no_reply": 0.0}
    found = local.get("yes_no_reply")
    if isinstance(found, bool):
        return {"yes_no_reply": float(found)}
    if sample is None:
        return {}
    return {"yes_no_reply": float(yes_no_reply(sample.question, sample.answer))}


def _claims(record: ResultRecord) -> list[Mapping[str, Any]]:
    claims = record.details.get("claims")
    return [c for c in claims if isinstance(c, Mapping)] if isinstance(claims, list) else []


def _faithfulness(record: ResultRecord, sample: Sample | None) -> dict[str, float]:
    assert record.score is not None
    claims = _claims(record)
    n = len(claims)
    probabilities = [_claim_p(c) for c in claims] or [record.score]
    local = _local(record, sample)
    found = local.get("answer_overlap")
    if not isinstance(found, int | float):  # damaged details: no signal is invented
        raise MissingSignals(f"result {record.sample_id!r} has no answer_overlap signal")
    answer_overlap = float(found)

    def share(count: object) -> float:
        return float(count) / n if n and isinstance(count, int | float) else 0.0

    def overlap(key: str) -> float:
        value = local.get(key)
        return float(value) if isinstance(value, int | float) else answer_overlap

    return {
        "score": record.score,
        "min_claim_p": min(probabilities),
        "mean_claim_p": sum(probabilities) / len(probabilities),
        "log_claims": math.log1p(n),
        "no_claims": float(n == 0),
        "evidence_not_found_share": share(record.details.get("evidence_not_found", 0)),
        "answer_overlap": answer_overlap,
        "min_claim_overlap": overlap("min_claim_overlap"),
        "mean_claim_overlap": overlap("mean_claim_overlap"),
        "missing_name_share": share(local.get("claims_missing_name", 0)),
        "missing_number_share": share(local.get("claims_missing_number", 0)),
        "negation_flip_share": share(local.get("negation_flips", 0)),
        **_yes_no_reply(record, local, sample),
        "abstention": _abstention(record),
    }


def _abstention(record: ResultRecord) -> float:
    """1 for an answer that abstains ("I don't have information about that"): its words
    are kept in the result. Courtesy alone ("Thanks!") is not an abstention."""
    said = record.details.get("abstention")
    return float(isinstance(said, str) and bool(said.strip()) and not is_courtesy(said))


def signals_of(record: ResultRecord, sample: Sample | None = None) -> dict[str, float] | None:
    """The calibration signals of ``record`` (``None`` when it has no score)."""
    if record.score is None:
        return None
    if record.metric == "faithfulness":
        return _faithfulness(record, sample)
    return {"score": record.score}


def signal_matrix(
    rows: Sequence[Sequence[ResultRecord]],
    names: Sequence[str],
    samples: Mapping[tuple[str, str | None], Sample] | None = None,
) -> list[list[float]]:
    """One row per item: each signal averaged over the item's scored results (its
    iterations)."""
    matrix = []
    for records in rows:
        found = [
            s
            for r in records
            if (s := signals_of(r, (samples or {}).get((r.sample_id, r.system)))) is not None
        ]
        if not found:
            raise MissingSignals(f"item {records[0].sample_id!r} has no scored result")
        lacking = sorted({name for s in found for name in names if name not in s})
        if lacking:
            raise MissingSignals(
                f"item {records[0].sample_id!r} has no {', '.join(lacking)} signal (a run from "
                "an older version): give its dataset so it can be computed"
            )
        matrix.append([sum(s[name] for s in found) / len(found) for name in names])
    return matrix
