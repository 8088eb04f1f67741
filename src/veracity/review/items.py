"""The items of a run to label: each (sample, system)'s texts and how the judge saw it,
and the orders they can be shown in."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from veracity.agreement.runs import dataset_path, read_samples
from veracity.report.run_data import RunData, load_run

ORDERS: Final = ("random", "uncertain", "disagreement", "worst")
SEED: Final = 0  # the random order is the same on every start: a restart resumes it


class ReviewError(ValueError):
    """A run that cannot be reviewed (the message says why)."""


@dataclass(frozen=True, slots=True)
class Claim:
    text: str
    verdict: str
    reason: str
    evidence: str


@dataclass(frozen=True, slots=True)
class Item:
    """One answer to label. ``other_score``: the second run's score (``--order
    disagreement``)."""

    sample_id: str
    system: str | None
    question: str
    history: tuple[tuple[str, str], ...]
    answer: str
    contexts: tuple[str, ...]
    claims: tuple[Claim, ...]
    score: float | None
    reason: str
    calibrated: float | None
    other_score: float | None = None

    @property
    def key(self) -> tuple[str, str | None]:
        return (self.sample_id, self.system)


@dataclass(frozen=True)
class Review:
    """A run's items, in the order chosen, and what they are judged against."""

    run: Path
    metric: str
    threshold: float
    items: tuple[Item, ...]
    order: str


def _claims(details: dict[str, Any]) -> tuple[Claim, ...]:
    found = []
    for claim in details.get("claims") or []:
        if isinstance(claim, dict):
            found.append(
                Claim(
                    text=str(claim.get("claim") or ""),
                    verdict=str(claim.get("verdict") or ""),
                    reason=str(claim.get("reason") or ""),
                    evidence=str(claim.get("evidence") or ""),
                )
            )
    return tuple(found)


def _scores(run: Path, metric: str) -> tuple[dict[tuple[str, str | None], Any], float, RunData]:
    """The run's results of ``metric`` (first iteration) by item, its threshold, the run."""
    from veracity.report.load import ReportError
    from veracity.store import ResultsFileError

    try:
        data = load_run(run)
        if metric not in data.metrics:
            have = ", ".join(data.metrics) or "none"
            raise ReviewError(f"{run}: the run has no {metric} results (its metrics: {have})")
        records = {
            (r.sample_id, r.system): r
            for r in data.records()
            if r.metric == metric and r.iteration == 0
        }
        return records, data.threshold(metric), data
    except (ReportError, ResultsFileError) as exc:
        raise ReviewError(str(exc)) from exc


def load_review(
    run: Path, *, metric: str = "faithfulness", order: str = "random", other: Path | None = None
) -> Review:
    """The items of ``run`` (its dataset gives the texts), in ``order``; ``other``: a
    second run of the same samples, for ``disagreement``."""
    from veracity.agreement.runs import AgreementError

    if order not in ORDERS:
        raise ReviewError(f"unknown order {order!r} (one of {', '.join(ORDERS)})")
    if order == "disagreement" and other is None:
        raise ReviewError("--order disagreement needs a second run: veracity label RUN_A RUN_B")
    records, threshold, data = _scores(run, metric)
    try:
        samples = read_samples(dataset_path(data))
    except AgreementError as exc:
        raise ReviewError(str(exc)) from exc
    if not samples:
        raise ReviewError(f"{run}: the run's dataset is not at hand (its texts are needed)")
    others = _scores(other, metric)[0] if other is not None else {}
    items = []
    for key, record in records.items():
        sample = samples.get(key)
        if sample is None:
            continue
        other_record = others.get(key)
        items.append(
            Item(
                sample_id=sample.id,
                system=sample.system,
                question=sample.question,
                history=tuple((turn.role or "", turn.content) for turn in sample.history),
                answer=sample.answer,
                contexts=sample.contexts,
                claims=_claims(record.details or {}),
                score=record.score,
                reason=record.reason or "",
                calibrated=record.calibrated,
                other_score=None if other_record is None else other_record.score,
            )
        )
    if not items:
        raise ReviewError(f"{run}: no {metric} result matches a sample of the run's dataset")
    if other is not None and not any(item.other_score is not None for item in items):
        raise ReviewError(f"{other}: no {metric} result for the samples of {run}")
    return Review(run, metric, threshold, ordered(items, order, threshold), order)


def ordered(items: Sequence[Item], order: str, threshold: float) -> tuple[Item, ...]:
    """``items`` in ``order``: ``random`` (seeded); ``uncertain``, nearest the line
    between good and bad (the calibrated probability's 0.5, else the threshold);
    ``disagreement``, where two runs' scores differ most; ``worst``, lowest score first.
    Items without a score come last in the last three."""
    if order == "random":
        shuffled = list(items)
        random.Random(SEED).shuffle(shuffled)
        return tuple(shuffled)

    def distance(item: Item) -> float:
        if order == "uncertain":
            if item.calibrated is not None:
                return abs(item.calibrated - 0.5)
            return abs(item.score - threshold) if item.score is not None else float("inf")
        if order == "disagreement":
            if item.score is None or item.other_score is None:
                return float("inf")
            return -abs(item.score - item.other_score)
        return item.score if item.score is not None else float("inf")

    return tuple(sorted(items, key=distance))
