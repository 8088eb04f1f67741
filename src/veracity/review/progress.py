"""How far the labelling has come: the counts, the next milestone, and (with enough
labels) the judge's AUROC against them; and ``calibrate`` run from the page."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from veracity.review.items import Review
from veracity.review.labelfile import LabelFile

#: Fewer labels than this say little about agreement; past the second a calibration
#: reliably beats the word-overlap floor (docs/agreement.md).
AGREEMENT_MILESTONE: Final = 30
CALIBRATION_MILESTONE: Final = 100
RESAMPLES: Final = 300  # enough for an interval on the page; agree uses 1,000


@dataclass(frozen=True, slots=True)
class Progress:
    mine: int  # items this annotator has answered
    labelled: int  # items anyone has answered
    target: int
    milestone: str | None
    auroc: tuple[float, float | None, float | None] | None  # value, 95 % interval
    auroc_note: str | None  # why there is none


@dataclass(frozen=True, slots=True)
class Calibrated:
    """What the page's calibrate button did: the summary lines, and the file written."""

    lines: tuple[str, ...]
    written: Path | None


def _milestone(labelled: int) -> str | None:
    if labelled < AGREEMENT_MILESTONE:
        return f"{AGREEMENT_MILESTONE}: agreement means something"
    if labelled < CALIBRATION_MILESTONE:
        return f"{CALIBRATION_MILESTONE}: calibration"
    return None


_cache: dict[
    tuple[str, int, int], tuple[tuple[float, float | None, float | None] | None, str | None]
] = {}


def _auroc(
    review: Review, labels: LabelFile
) -> tuple[tuple[float, float | None, float | None] | None, str | None]:
    """The run's AUROC against the labels so far, as ``veracity agree`` computes it,
    computed again only when the labels file changes."""
    from veracity.agreement.runs import AgreementError, agree

    stat = labels.path.stat()
    key = (str(labels.path), stat.st_size, stat.st_mtime_ns)
    if key in _cache:
        return _cache[key]
    try:
        report = agree([review.run], labels.path, resamples=RESAMPLES)
    except AgreementError as exc:
        found: tuple[tuple[float, float | None, float | None] | None, str | None] = (None, str(exc))
    else:
        metric = next((m for m in report.metrics[0] if m.metric == review.metric), None)
        auroc = None if metric is None else metric.overall.figures.auroc
        if auroc is None or auroc.value is None:
            found = (None, "AUROC is not defined yet: the labels need both answers, yes and no")
        else:
            low, high = auroc.ci95 if auroc.ci95 is not None else (None, None)
            found = ((auroc.value, low, high), None)
    _cache[key] = found
    return found


def progress(review: Review, labels: LabelFile, annotator: str, target: int) -> Progress:
    labelled = labels.labelled_by_anyone()
    auroc, note = (None, None)
    if labelled >= AGREEMENT_MILESTONE:
        auroc, note = _auroc(review, labels)
    return Progress(
        mine=len(labels.standing(annotator)),
        labelled=labelled,
        target=target,
        milestone=_milestone(labelled),
        auroc=auroc,
        auroc_note=note,
    )


def run_calibration(review: Review, labels: LabelFile, out: Path) -> Calibrated:
    """``veracity calibrate RUN --labels LABELS --out OUT``: written only where it helps."""
    from veracity.agreement.runs import AgreementError, calibrate_run
    from veracity.store import write_json_atomic

    try:
        fitted = calibrate_run(review.run, labels.path, metrics=[review.metric])
    except AgreementError as exc:
        return Calibrated((f"not calibrated: {exc}",), None)
    lines = tuple(str(fitted).splitlines())
    chosen = fitted.helpful()
    if not chosen.metrics:
        return Calibrated(
            (*lines, "calibration does not help on these labels: nothing written"), None
        )
    write_json_atomic(out, chosen.model_dump(mode="json"))
    return Calibrated(lines, out)
