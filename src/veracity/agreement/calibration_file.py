"""The calibration file: a map fitted to people's labels from a result's signals to
P(people call the answer good), per metric, with what it was fitted on.

Written by ``veracity calibrate``, read by ``veracity run --calibration``. veracity also
ships named scorings: calibrations fitted once on its development sets' fit halves, one
per kind of judge (``veracity.agreement.scorings``), chosen by name where a file is
expected. Applying one needs numpy alone. Reading never trusts the file: its size is
bounded, every number must be finite, every list has the length its model needs, and a
signal must be one veracity knows; anything else is a :class:`CalibrationFileError`
naming the file and the field.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from veracity.agreement.scorings import NAMES as SCORINGS
from veracity.agreement.scorings import scoring_file
from veracity.agreement.signals import (
    FAITHFULNESS_SIGNALS,
    MissingSignals,
    signal_names,
    signals_of,
)
from veracity.types import ResultRecord, Sample

# A calibration is a few hundred numbers; a file far larger is not one.
MAX_BYTES = 4 * 1024 * 1024
_MAX_POINTS = 10_000
_KNOWN_SIGNALS = frozenset(FAITHFULNESS_SIGNALS)


class CalibrationFileError(ValueError):
    """A calibration file that cannot be used (message names the file and the problem)."""


class CalibrationWarning(UserWarning):
    """A calibration applied to a run it may not fit (another judge, other prompts)."""


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
        return self

    def predict(self, rows: np.ndarray[Any, np.dtype[np.float64]]) -> list[float]:
        z = self.intercept + ((rows - np.asarray(self.mean)) / np.asarray(self.scale)) @ np.asarray(
            self.coef
        )
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

    @model_validator(mode="after")
    def _signals_fit_metric(self) -> MetricCalibration:
        allowed = signal_names(self.metric)
        extra = [s for s in self.model.signals if s not in allowed]
        if extra:
            raise ValueError(f"signal(s) {extra} are not signals of {self.metric}")
        return self


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

    def calibrated(self, record: ResultRecord, sample: Sample | None = None) -> float | None:
        """P(people call the answer good) for ``record``, or ``None`` when the file does
        not calibrate its metric, the record has no score, or it lacks a signal the model
        reads (a result from a version before local signals, without its sample)."""
        found = self.metrics.get(record.metric)
        try:
            signals = signals_of(record, sample) if found is not None else None
        except MissingSignals:
            return None
        if found is None or signals is None:
            return None
        row = np.asarray([[signals[name] for name in found.model.signals]], dtype=np.float64)
        return found.model.predict(row)[0]

    def differences(self, judge: JudgeIdentity) -> list[str]:
        """How ``judge`` differs from the judge this file was fitted on ([] if it does not).
        A named scoring is meant for every judge of its kind: only the kind counts."""
        if self.scoring is not None:
            kind = judge_kind(judge.name)
            if kind == self.scoring.judges:
                return []
            return [f"scoring {self.scoring.name!r} is for {_KIND_NAMES[self.scoring.judges]}, "
                    f"not {judge.name!r}"]  # fmt: skip
        found = []
        if judge.name != self.judge.name:
            found.append(f"judge {judge.name!r}, fitted on {self.judge.name!r}")
        changed = sorted(
            key
            for key in self.judge.fingerprints.keys() | judge.fingerprints.keys()
            if self.judge.fingerprints.get(key) != judge.fingerprints.get(key)
        )
        if changed:
            found.append(f"prompts or parameters changed: {', '.join(changed)}")
        return found


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
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise CalibrationFileError(
                f"calibration file {path}: {size:,} bytes is not a calibration file "
                f"(at most {MAX_BYTES:,})"
            )
        text = path.read_bytes().decode("utf-8")
        raw = json.loads(text, parse_constant=_no_constant)
    except CalibrationFileError:
        raise
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
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "file"
        raise CalibrationFileError(
            f"calibration file {path}: field {where!r}: {first['msg']} "
            f"({exc.error_count()} problem(s))"
        ) from None


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number")
