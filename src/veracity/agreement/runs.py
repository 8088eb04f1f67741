"""Runs against people's labels, the package's entry points: :func:`agree` and
:func:`calibrate_run` read each run (its records and thresholds), the samples of its
dataset (for the texts of disagreements, labels kept in the dataset, and signals a run from
an older version lacks), and the labels from a file, a DataFrame or the dataset."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from veracity._version import __version__
from veracity.agreement.calibrate import FOLDS, CalibrationError, calibrate_metric
from veracity.agreement.calibration_file import (
    CalibrationFile,
    MetricCalibration,
    judge_identity,
)
from veracity.agreement.join import NoSharedItems, join
from veracity.agreement.report import AgreementReport, agreement_report
from veracity.agreement.signals import MissingSignals
from veracity.agreement.statistics import RESAMPLES
from veracity.dataset import DatasetError, read_dataset
from veracity.labels import LabelError, LabelSet, Scale, labels_from_samples, read_labels
from veracity.report.run_data import RunData, RunLike, load_run
from veracity.types import Sample

SampleIndex = dict[tuple[str, str | None], Sample]


class AgreementError(ValueError):
    """Runs and labels that cannot be brought together (message says why)."""


def dataset_path(run: RunData, given: Path | None = None) -> Path | None:
    """The run's dataset: ``given``, else the one its ``run.json`` records, if it is
    still there."""
    if given is not None:
        if not given.is_file():
            raise AgreementError(f"dataset not found: {given}")
        return given
    return run.dataset_file()


def read_samples(path: Path | None, held: Iterable[Sample] = ()) -> SampleIndex:
    """Every valid sample of the dataset at ``path`` (and ``held``), by (id, system)."""
    found: SampleIndex = {(s.id, s.system): s for s in held}
    if path is None:
        return found
    try:
        for row in read_dataset(path):
            if isinstance(row, Sample):
                found[(row.id, row.system)] = row
    except DatasetError as exc:
        raise AgreementError(str(exc)) from exc
    return found


def resolve_labels(
    labels: str | Path | LabelSet | Any | None,
    samples: SampleIndex,
    *,
    scales: Mapping[str, Scale] | None = None,
    default_target: str = "faithfulness",
) -> LabelSet:
    """The labels given, or (``None``) those the run's dataset holds."""
    try:
        if labels is None:
            if not samples:
                raise AgreementError(
                    "no labels given, and the run's dataset (which may hold `label` or "
                    "`human_<metric>` fields) is not at hand: give --labels FILE"
                )
            return labels_from_samples(
                samples.values(), scales=scales, default_target=default_target
            )
        return read_labels(labels, scales=scales, default_target=default_target)
    except LabelError as exc:
        raise AgreementError(str(exc)) from exc


def agree(
    runs: Sequence[Path | str | RunLike],
    labels: str | Path | LabelSet | Any | None = None,
    *,
    dataset: Path | None = None,
    scales: Mapping[str, Scale] | None = None,
    default_target: str = "faithfulness",
    top: int = 5,
    resamples: int = RESAMPLES,
) -> AgreementReport:
    """The agreement of one run, or two paired, with people's labels."""
    loaded = [load_run(run) for run in runs]
    held = [s for run in runs for s in getattr(run, "samples", ())]
    samples = read_samples(dataset_path(loaded[0], dataset), held)
    label_set = resolve_labels(labels, samples, scales=scales, default_target=default_target)
    names = [_name(run, data) for run, data in zip(runs, loaded, strict=True)]
    if len(names) == 2 and names[0] == names[1]:
        names = [f"A: {names[0]}", f"B: {names[1]}"]
    try:
        return agreement_report(
            [
                (name, data.records(), {m: data.threshold(m) for m in data.metrics})
                for name, data in zip(names, loaded, strict=True)
            ],
            label_set,
            samples,
            top=top,
            resamples=resamples,
        )
    except NoSharedItems as exc:
        raise AgreementError(str(exc)) from None


def _name(run: Path | str | RunLike, data: RunData) -> str:
    if isinstance(run, str | Path):
        return str(run)
    judge = data.judge.get("name")
    return str(judge) if judge else "this run"


@dataclass(frozen=True)
class Fitted:
    """What ``veracity calibrate`` found: the file (every metric fitted, helpful or not)
    and, per metric, why it could not be fitted."""

    calibration: CalibrationFile
    not_fitted: dict[str, str]

    def helpful(self) -> CalibrationFile:
        """The file with only the metrics whose calibration helps."""
        kept = {m: c for m, c in self.calibration.metrics.items() if c.helps}
        return self.calibration.model_copy(update={"metrics": kept})

    def __str__(self) -> str:
        """The calibration's summary, then the metrics that could not be fitted, why."""
        lines = self.calibration.summary_lines()
        lines += [f"{metric}: not calibrated: {why}" for metric, why in self.not_fitted.items()]
        return "\n".join(lines)


def calibrate_run(
    run: Path | str | RunLike,
    labels: str | Path | LabelSet | Any | None = None,
    *,
    dataset: Path | None = None,
    scales: Mapping[str, Scale] | None = None,
    default_target: str = "faithfulness",
    metrics: Sequence[str] | None = None,
    folds: int = FOLDS,
) -> Fitted:
    """Fit a calibration of ``run``'s metrics to ``labels`` (cross-validated)."""
    data = load_run(run)
    held = getattr(run, "samples", ())
    samples = read_samples(dataset_path(data, dataset), held)
    label_set = resolve_labels(labels, samples, scales=scales, default_target=default_target)
    try:
        joined = [j for j in join(data.records(), label_set) if not metrics or j.metric in metrics]
    except NoSharedItems as exc:
        raise AgreementError(str(exc)) from None
    if not joined:
        have = ", ".join(label_set.targets()) or "none"
        raise AgreementError(
            f"no metric of the run has labels (label targets: {have}; run metrics: "
            f"{', '.join(data.metrics) or 'none'})"
        )
    fitted: dict[str, MetricCalibration] = {}
    not_fitted: dict[str, str] = {}
    for one in joined:
        try:
            fitted[one.metric] = calibrate_metric(
                one, samples, threshold=data.threshold(one.metric), folds=folds
            )
        except (CalibrationError, MissingSignals) as exc:
            not_fitted[one.metric] = str(exc)
    calibration = CalibrationFile(
        veracity_version=__version__,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        run=_name(run, data),
        labels=label_set.source,
        judge=judge_identity(data.judge),
        metrics=fitted,
    )
    return Fitted(calibration, not_fitted)
