"""The calibration file: a map fitted to people's labels from a result's signals to
P(people call the answer good), per metric, with what it was fitted on.

Written by ``veracity calibrate``, read by ``veracity run --calibration``. veracity also
ships named scorings: calibrations fitted once on its development sets' fit halves, one
per kind of judge (``veracity.agreement.scorings``), chosen by name where a file is
expected. Applying one needs numpy alone. Reading never trusts the file: its size is
bounded, every number must be finite, every list has the length its model needs, a
signal must be one veracity knows, and what the file computes must be finite wherever its
signals can be; anything else is a :class:`CalibrationFileError` naming the file and the
field. Applying it never loses a result: one it cannot calibrate keeps its raw score, with
the reason in its details.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from veracity._bounded import FileTooLargeError, read_bounded
from veracity.agreement.scorings import NAMES as SCORINGS
from veracity.agreement.scorings import scoring_file
from veracity.agreement.signals import (
    FAITHFULNESS_SIGNALS,
    MissingSignals,
    signal_names,
    signals_of,
)
from veracity.prompts import (
    ANSWER_CLASSIFICATION,
    CHUNK_RELEVANCE,
    CLAIM_EXTRACTION,
    CLAIM_VERIFICATION,
    CLAIM_VERIFICATION_ALONE,
    DEFAULT_RUBRIC_TEMPLATE,
    FACTUAL_ACCURACY,
    QUESTION_GENERATION,
    RELEVANCE_RATING,
)
from veracity.types import ResultRecord, Sample

# A calibration is a few hundred numbers; a file far larger is not one.
MAX_BYTES = 4 * 1024 * 1024
_MAX_POINTS = 10_000
_KNOWN_SIGNALS = frozenset(FAITHFULNESS_SIGNALS)
# The values each signal can take: scores, probabilities, shares and overlaps in [0, 1];
# log(1 + claims) up to a thousand claims. A logistic model is linear in its signals, so
# it takes its extremes at the corners of these ranges: a file is checked there.
MAX_CLAIMS = 1000
SIGNAL_RANGES: dict[str, tuple[float, float]] = dict.fromkeys(_KNOWN_SIGNALS, (0.0, 1.0)) | {
    "log_claims": (0.0, math.log1p(MAX_CLAIMS))
}
# Where a result keeps the reason it has no calibrated probability (its score stays).
CALIBRATION_ERROR = "calibration_error"
_CLAIMS = (CLAIM_EXTRACTION.id, CLAIM_VERIFICATION.id, CLAIM_VERIFICATION_ALONE.id)
# The prompts each metric's results depend on (keys of a judge's fingerprints); "params",
# the offline judge's parameters, every metric reads. A metric not here: all of them.
_PROMPTS: dict[str, tuple[str, ...]] = {
    "faithfulness": _CLAIMS,
    "context_recall": _CLAIMS,
    "citation_recall": _CLAIMS,
    "citation_precision": _CLAIMS,
    "context_precision": (CHUNK_RELEVANCE.id,),
    "answer_relevance": (QUESTION_GENERATION.id, RELEVANCE_RATING.id),
    "factual_accuracy": (FACTUAL_ACCURACY.id,),
    "answer_classification": (ANSWER_CLASSIFICATION.id,),
    "rubric": (DEFAULT_RUBRIC_TEMPLATE.id,),
}


class CalibrationFileError(ValueError):
    """A calibration file that cannot be used (message names the file and the problem)."""


class CalibrationMismatchError(CalibrationFileError):
    """A calibration fitted on another judge (or other prompts) than the run's: refused
    unless forced, since its probabilities would not mean what they say."""


class CalibrationFailed(ValueError):
    """One result the calibration cannot give a probability (its reason in the message)."""


class CalibrationWarning(UserWarning):
    """A calibration applied to a run it may not fit (forced), or that calibrates none of
    the run's metrics, or results it could not calibrate."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class LogisticModel(_Frozen):
    """Logistic regression on standardised signals: σ(intercept + Σ coef·(x − mean)/scale).
    A signal's scale is its standard deviation over its prior weight (word overlap's is a
    tenth of it: :data:`~veracity.agreement.calibrate.PRIOR_WEIGHTS`)."""

    kind: Literal["logistic"] = "logistic"
    signals: tuple[str, ...] = Field(min_length=1, max_length=len(FAITHFULNESS_SIGNALS))
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float

    @model_validator(mode="after")
    def _consistent(self) -> LogisticModel:
        unknown = [s for s in self.signals if s not in _KNOWN_SIGNALS]
        if unknown:
            raise ValueError(f"unknown signal(s) {unknown}")
        n = len(self.signals)
        if not len(self.mean) == len(self.scale) == len(self.coef) == n:
            raise ValueError(f"mean, scale and coef need one number per signal ({n})")
        if any(s <= 0 for s in self.scale):
            raise ValueError("every scale must be positive")
        # Finite numbers can still overflow (a scale of 5e-324, a coefficient of 1e308):
        # what the model computes is checked where its signals can be.
        corners = list(itertools.product(*(SIGNAL_RANGES[name] for name in self.signals)))
        z = self._z(np.asarray(corners, dtype=np.float64))
        bad = np.flatnonzero(~np.isfinite(z))
        if bad.size:
            at = ", ".join(
                f"{name}={value:g}"
                for name, value in zip(self.signals, corners[bad[0]], strict=True)
            )
            raise ValueError(
                f"its means, scales and coefficients give no finite value at {at} "
                f"({bad.size} of {len(corners)} corners of its signals' ranges)"
            )
        return self

    def _z(self, rows: np.ndarray[Any, np.dtype[np.float64]]) -> np.ndarray[Any, Any]:
        with np.errstate(all="ignore"):  # an overflow is a value checked by the callers
            scaled = (rows - np.asarray(self.mean)) / np.asarray(self.scale)
            z: np.ndarray[Any, Any] = self.intercept + scaled @ np.asarray(self.coef)
        return z

    def predict(self, rows: np.ndarray[Any, np.dtype[np.float64]]) -> list[float]:
        z = self._z(rows)
        if not np.all(np.isfinite(z)):
            shown = ", ".join(f"{n}={v:g}" for n, v in zip(self.signals, rows[0], strict=True))
            raise CalibrationFailed(f"no finite probability for signals {shown}")
        return [float(v) for v in 1.0 / (1.0 + np.exp(-np.clip(z, -500, 500)))]


class IsotonicModel(_Frozen):
    """A non-decreasing step map of the score, linear between its points."""

    kind: Literal["isotonic"] = "isotonic"
    signals: tuple[Literal["score"]] = ("score",)
    x: tuple[float, ...] = Field(min_length=1, max_length=_MAX_POINTS)
    y: tuple[Annotated[float, Field(ge=0.0, le=1.0)], ...] = Field(
        min_length=1, max_length=_MAX_POINTS
    )

    @model_validator(mode="after")
    def _monotone(self) -> IsotonicModel:
        if len(self.x) != len(self.y):
            raise ValueError("x and y need the same length")
        if any(b < a for a, b in zip(self.x, self.x[1:], strict=False)) or any(
            b < a for a, b in zip(self.y, self.y[1:], strict=False)
        ):
            raise ValueError("x and y must be non-decreasing")
        return self

    def predict(self, rows: np.ndarray[Any, np.dtype[np.float64]]) -> list[float]:
        return [float(v) for v in np.interp(rows[:, 0], self.x, self.y)]


Model = Annotated[LogisticModel | IsotonicModel, Field(discriminator="kind")]


class CrossValidated(_Frozen):
    """Out-of-fold figures, raw score against calibrated probability, on the same items.
    Differences are calibrated − raw with their paired-bootstrap 95 % interval."""

    folds: int = Field(ge=2)
    auroc_raw: float | None = None
    auroc_calibrated: float | None = None
    auroc_diff: float | None = None
    auroc_diff_ci95: tuple[float, float] | None = None
    brier_raw: float | None = None
    brier_calibrated: float | None = None
    brier_diff: float | None = None
    brier_diff_ci95: tuple[float, float] | None = None
    ece_raw: float | None = None
    ece_calibrated: float | None = None


class MetricCalibration(_Frozen):
    metric: str = Field(min_length=1, max_length=200)
    target: str = Field(min_length=1, max_length=200)
    n: int = Field(ge=0)
    n_positive: int = Field(ge=0)
    model: Model
    cv: CrossValidated
    helps: bool
    verdict: str = Field(max_length=2000)

    def summary_lines(self) -> list[str]:
        """The model, n, and the out-of-fold figures raw → calibrated, with the verdict."""
        signals = self.model.signals
        what = (
            "isotonic on the score"
            if self.model.kind == "isotonic"
            else "logistic regression on its signals"
            if len(signals) > 1
            else f"logistic regression on {signals[0]} alone"
        )
        cv = self.cv
        lines = [
            f"{self.metric}: {self.n} labelled item(s) ({self.n_positive} good), {what}, "
            f"{cv.folds}-fold cross-validated"
        ]
        rows = (
            ("AUROC", cv.auroc_raw, cv.auroc_calibrated, cv.auroc_diff, cv.auroc_diff_ci95),
            ("Brier", cv.brier_raw, cv.brier_calibrated, cv.brier_diff, cv.brier_diff_ci95),
            ("ECE", cv.ece_raw, cv.ece_calibrated, None, None),
        )
        for name, raw, calibrated, diff, ci in rows:
            change = "" if diff is None else f"   calibrated − raw {_diff(diff, ci)}"
            lines.append(f"  {name:<6} raw {_n(raw)} → calibrated {_n(calibrated)}{change}")
        lines.append(f"  {self.verdict}")
        return lines

    @model_validator(mode="after")
    def _signals_fit_metric(self) -> MetricCalibration:
        allowed = signal_names(self.metric)
        extra = [s for s in self.model.signals if s not in allowed]
        if extra:
            raise ValueError(f"signal(s) {extra} are not signals of {self.metric}")
        return self


def _n(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _diff(value: float, ci: tuple[float, float] | None) -> str:
    return f"{value:+.3f}" + ("" if ci is None else f" ({ci[0]:+.3f}…{ci[1]:+.3f})")


class JudgeIdentity(_Frozen):
    """What makes a judge the same judge: its name and its prompts (or parameters)."""

    name: str = Field(max_length=500)
    fingerprints: dict[str, str] = Field(default_factory=dict, max_length=200)


JudgeKind = Literal["offline", "llm"]


def judge_kind(name: str) -> JudgeKind:
    """The kind of judge a judge's name says it is."""
    return "offline" if name == "offline" or name.startswith("offline/") else "llm"


_KIND_NAMES: dict[JudgeKind, str] = {"offline": "the offline judge", "llm": "LLM judges"}


class Scoring(_Frozen):
    """A calibration shipped with veracity: fitted on its development sets, not on the
    user's labels, for every judge of one kind."""

    name: str = Field(min_length=1, max_length=100)
    judges: JudgeKind
    fitted_on: str = Field(max_length=2000)


class CalibrationFile(_Frozen):
    veracity_calibration: Literal[1] = 1
    veracity_version: str = Field(max_length=100)
    created_at: str = Field(max_length=100)
    run: str = Field(max_length=4096)
    labels: str = Field(max_length=4096)
    judge: JudgeIdentity
    metrics: dict[str, MetricCalibration] = Field(max_length=200)
    scoring: Scoring | None = None

    @model_validator(mode="after")
    def _entries_are_their_metrics(self) -> CalibrationFile:
        # A result is calibrated by the entry under its metric's name: that entry must be
        # fitted on that metric's signals.
        for key, entry in self.metrics.items():
            if entry.metric != key:
                raise ValueError(f"entry {key!r} is a calibration of {entry.metric!r}")
        return self

    def calibrated(self, record: ResultRecord, sample: Sample | None = None) -> float | None:
        """P(people call the answer good) for ``record``, or ``None`` when the file does
        not calibrate its metric or the record has no score. :class:`CalibrationFailed`
        when it cannot say: the record lacks a signal the model reads (a result from a
        version before local signals, without its sample, or damaged details), or its
        signals lie where the model gives no finite value."""
        found = self.metrics.get(record.metric)
        if found is None:
            return None
        try:
            signals = signals_of(record, sample)
        except MissingSignals as exc:
            raise CalibrationFailed(str(exc)) from None
        if signals is None:
            return None
        missing = [name for name in found.model.signals if name not in signals]
        if missing:
            raise CalibrationFailed(
                f"result {record.sample_id!r} ({record.metric}) has no signal {missing[0]!r} "
                "(a result from an older version, without its sample at hand)"
            )
        row = np.asarray([[signals[name] for name in found.model.signals]], dtype=np.float64)
        value = found.model.predict(row)[0]
        if not 0.0 <= value <= 1.0:  # NaN too: a signal that is not a number
            raise CalibrationFailed(f"no probability for signals {signals}")
        return value

    def differences(self, judge: JudgeIdentity, metrics: Iterable[str] | None = None) -> list[str]:
        """How ``judge`` differs from the judge this file was fitted on ([] if it does not),
        in what matters to the metrics it calibrates (of ``metrics``, when given). A named
        scoring is meant for every judge of its kind: only the kind counts."""
        if self.scoring is not None:
            kind = judge_kind(judge.name)
            if kind == self.scoring.judges:
                return []
            return [f"scoring {self.scoring.name!r} is for {_KIND_NAMES[self.scoring.judges]}, "
                    f"not {judge.name!r}"]  # fmt: skip
        if judge.name != self.judge.name:
            return [f"fitted on judge {self.judge.name!r}; this run's judge is {judge.name!r}"]
        calibrated = [m for m in (self.metrics if metrics is None else metrics) if m in self]
        relevant = _relevant_prompts(calibrated or list(self.metrics))
        changed = sorted(
            key
            for key in self.judge.fingerprints.keys() | judge.fingerprints.keys()
            if (relevant is None or key in relevant)
            and self.judge.fingerprints.get(key) != judge.fingerprints.get(key)
        )
        if not changed:
            return []
        return [
            f"fitted on judge {self.judge.name!r} with other prompts or parameters than this "
            f"run's for {', '.join(calibrated or self.metrics)}: {', '.join(changed)}"
        ]

    def __contains__(self, metric: object) -> bool:
        return metric in self.metrics

    def __repr__(self) -> str:
        what = f"scoring={self.scoring.name!r}" if self.scoring else f"labels={self.labels!r}"
        return (
            f"CalibrationFile(metrics={sorted(self.metrics)!r}, judge={self.judge.name!r}, "
            f"{what}, created_at={self.created_at!r})"
        )

    def __str__(self) -> str:
        return "\n".join(self.summary_lines())

    def summary_lines(self) -> list[str]:
        """What the file is, for people: what it was fitted on, then per metric the model,
        n, and the cross-validated figures raw → calibrated with the verdict."""
        fitted_on = (
            f"scoring {self.scoring.name!r} for {_KIND_NAMES[self.scoring.judges]}: "
            f"{self.scoring.fitted_on}"
            if self.scoring
            else f"labels {self.labels}"
        )
        lines = [
            f"calibration of {', '.join(self.metrics) or 'no metric'} (veracity "
            f"{self.veracity_version}, {self.created_at})",
            f"  judge: {self.judge.name}",
            f"  fitted on: {fitted_on}",
            f"  run: {self.run}",
        ]
        for entry in self.metrics.values():
            lines += entry.summary_lines()
        return lines


def _relevant_prompts(metrics: Iterable[str]) -> frozenset[str] | None:
    """The fingerprints' keys the results of ``metrics`` depend on; ``None``: all."""
    keys = {"params"}
    for metric in metrics:
        if metric.startswith("rubric:"):
            keys.add(metric)
        elif metric in _PROMPTS:
            keys.update(_PROMPTS[metric])
        else:
            return None
    return frozenset(keys)


def with_calibration(
    record: ResultRecord, calibration: CalibrationFile | None, sample: Sample | None = None
) -> ResultRecord:
    """``record`` with ``calibration``'s probability (``None`` where it calibrates nothing,
    or there is no calibration). Where calibrating it fails, its raw score stays, without
    a probability and with the reason in ``details["calibration_error"]``: calibration
    never loses a result."""
    covered = calibration is not None and record.metric in calibration
    if not covered and record.calibrated is None and CALIBRATION_ERROR not in record.details:
        return record  # nothing to give, nothing to take back
    value: float | None = None
    error: str | None = None
    if calibration is not None:
        try:
            value = calibration.calibrated(record, sample)
        except Exception as exc:  # whatever the data, the result itself is kept
            error = f"not calibrated: {exc}" if isinstance(exc, CalibrationFailed) else (
                f"not calibrated: {type(exc).__name__}: {exc}"
            )  # fmt: skip
    details = {k: v for k, v in record.details.items() if k != CALIBRATION_ERROR}
    if error is not None:
        details[CALIBRATION_ERROR] = error
    if value == record.calibrated and details == record.details:
        return record
    return record.model_copy(update={"calibrated": value, "details": details})


def judge_identity(described: dict[str, Any]) -> JudgeIdentity:
    """The identity of a judge from its description in ``run.json``."""
    prints = described.get("prompts")
    fingerprints = {str(k): str(v) for k, v in prints.items()} if isinstance(prints, dict) else {}
    if "params_fingerprint" in described:
        fingerprints["params"] = str(described["params_fingerprint"])
    return JudgeIdentity(name=str(described.get("name", "unknown")), fingerprints=fingerprints)


def read_calibration(source: Path | str) -> CalibrationFile:
    """The calibration in the file ``source``, or the named scoring ``source`` (one of
    ``SCORINGS``) when no such file exists; checked."""
    path = Path(source)
    if not path.exists() and str(source) in SCORINGS:
        with resources.as_file(scoring_file(str(source))) as shipped:
            return _read_file(shipped)
    return _read_file(path)


def _read_file(path: Path) -> CalibrationFile:
    try:
        text = read_bounded(path, MAX_BYTES).decode("utf-8")
        raw = json.loads(text, parse_constant=_no_constant)
    except FileTooLargeError as exc:
        raise CalibrationFileError(
            f"calibration file {path}: {exc}, which is not a calibration file"
        ) from None
    except FileNotFoundError:
        raise CalibrationFileError(
            f"calibration file not found: {path} (or a named scoring: {', '.join(SCORINGS)})"
        ) from None
    except OSError as exc:
        raise CalibrationFileError(
            f"calibration file {path}: cannot read it: {exc.strerror or exc}"
        ) from None
    except UnicodeDecodeError:
        raise CalibrationFileError(f"calibration file {path}: not UTF-8 text") from None
    except (ValueError, RecursionError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise CalibrationFileError(f"calibration file {path}: not JSON ({why})") from None
    if not isinstance(raw, dict) or "veracity_calibration" not in raw:
        raise CalibrationFileError(
            f"{path} is not a veracity calibration file (veracity calibrate writes one)"
        )
    try:
        # Strict: a number written as a string, or a bool as a number, is a damaged file.
        return CalibrationFile.model_validate_json(text, strict=True)
    except ValidationError as exc:
        raise _invalid(f"calibration file {path}", exc) from None


def checked_calibration_file(calibration: CalibrationFile, name: str) -> CalibrationFile:
    """``calibration`` checked as a file is when read: one built or copied in Python
    (``model_copy`` checks nothing) may compute what no file could."""
    try:
        return CalibrationFile.model_validate(calibration.model_dump())
    except ValidationError as exc:
        raise _invalid(f"calibration {name}", exc) from None


def _invalid(what: str, exc: ValidationError) -> CalibrationFileError:
    first = exc.errors(include_url=False)[0]
    where = ".".join(str(p) for p in first["loc"]) or "file"
    return CalibrationFileError(
        f"{what}: field {where!r}: {first['msg']} ({exc.error_count()} problem(s))"
    )


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number")
