"""Fitting a calibration to people's labels, with k-fold cross-validation.

The candidates per metric: a logistic regression on all the result's signals
(standardised, L2-regularised, word overlap barely: :data:`PRIOR_WEIGHTS`), one on the
judge's score alone and one on word overlap alone (:data:`SINGLE_SIGNALS`), and an
isotonic map of the score. Each is scored on out-of-fold predictions (folds stratified by
label, whole groups kept together when the labels name groups); the one that ranks the
labels best (AUROC; the lower Brier score on a tie) is chosen, then refitted on every
item. So a combination is kept only where the labels show that it ranks better than the
judge or the floor alone. Its out-of-fold AUROC and Brier are set against the raw
score's on the same items, with paired-bootstrap intervals: that comparison, not the fit
on all items, says whether calibration helps.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt

from veracity.agreement.calibration_file import (
    CrossValidated,
    IsotonicModel,
    LogisticModel,
    MetricCalibration,
)
from veracity.agreement.join import Joined
from veracity.agreement.signals import signal_matrix, signal_names
from veracity.agreement.statistics import paired_figures
from veracity.report.statistics import SEED
from veracity.types import Sample

FOLDS = 5
# The inverse L2 strength: with tens of labels a strong prior keeps a dozen signals from
# fitting noise. Chosen among 0.03–3 by the offline judge's mean calibrated AUROC at 25,
# 50 and 100 labels within the development sets' fit halves (docs/benchmarks.md).
LOGISTIC_C = 0.1
# Word overlap of the answer with the contexts is the one signal known, before any label,
# to rank faithfulness well (the floor every judge is measured against): its weight is
# barely shrunk (its column this many times larger, its penalty 1/100 of the others'), so
# with few labels the fit starts from the floor and the judge's signals move it only as
# far as the labels show they add. Chosen among 3, 10 and 30 (and freeing the score too)
# within the development sets' fit halves (docs/benchmarks.md).
PRIOR_WEIGHTS: Mapping[str, float] = MappingProxyType({"answer_overlap": 10.0})
# With few labels a dozen signals can rank worse than one: the judge's score (a judge
# already good on the team's data, e.g. the offline judge on wice_dev) or word overlap
# (where it is near perfect, as on begin_dev). Each alone is a candidate; the choice by
# out-of-fold AUROC was made within the development sets' fit halves (docs/benchmarks.md).
SINGLE_SIGNALS = ("score", "answer_overlap")
# A calibration "helps" when its out-of-fold Brier score is lower than the raw score's
# and its AUROC is at most this much lower (a monotone map can only tie the ranking).
AUROC_TOLERANCE = 0.02
# Below this many labelled items a fit is unreliable: drawn from the development sets'
# held-out pools, 10 or 20 labels reached the word-overlap floor in only 60–90 % of draws
# (docs/benchmarks.md). The verdict says so; the decision stays the team's.
FEW_LABELS = 30

Floats = npt.NDArray[np.float64]
Fitter = Callable[[Floats, npt.NDArray[np.bool_]], LogisticModel | IsotonicModel]


class CalibrationError(ValueError):
    """Labels that cannot support a fit (too few, one class only)."""


def fit_logistic(
    signals: Sequence[str], c: float = LOGISTIC_C, prior: Mapping[str, float] = PRIOR_WEIGHTS
) -> Fitter:
    weights = np.asarray([prior.get(name, 1.0) for name in signals])

    def fit(x: Floats, y: npt.NDArray[np.bool_]) -> LogisticModel:
        from sklearn.linear_model import LogisticRegression

        mean = x.mean(axis=0)
        scale = x.std(axis=0)
        scale = np.where(scale > 1e-9, scale, 1.0) / weights
        model = LogisticRegression(C=c, max_iter=1000)
        model.fit((x - mean) / scale, y)
        return LogisticModel(
            signals=tuple(signals),
            mean=tuple(float(v) for v in mean),
            scale=tuple(float(v) for v in scale),
            coef=tuple(float(v) for v in model.coef_[0]),
            intercept=float(model.intercept_[0]),
        )

    return fit


def fit_isotonic(x: Floats, y: npt.NDArray[np.bool_]) -> IsotonicModel:
    from sklearn.isotonic import IsotonicRegression

    model = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip")
    model.fit(x[:, 0], y.astype(np.float64))
    return IsotonicModel(
        x=tuple(float(v) for v in model.X_thresholds_),
        y=tuple(float(v) for v in model.y_thresholds_),
    )


def _folds(
    y: npt.NDArray[np.bool_], groups: Sequence[str | None] | None, folds: int, seed: int
) -> list[tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]]:
    from sklearn.model_selection import StratifiedGroupKFold, StratifiedKFold

    smallest = int(min(y.sum(), (~y).sum()))
    k = min(folds, smallest)
    if k < 2:
        raise CalibrationError(
            f"{len(y)} labelled item(s), {int(y.sum())} positive: a cross-validated fit "
            "needs at least 2 of each label"
        )
    if groups is not None and any(g is not None for g in groups):
        # An item without a group is a group of its own.
        names = [g if g is not None else f"\0item{i}" for i, g in enumerate(groups)]
        splitter = StratifiedGroupKFold(n_splits=k, shuffle=True, random_state=seed)
        return list(splitter.split(np.zeros(len(y)), y, names))
    plain = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
    return list(plain.split(np.zeros(len(y)), y))


def out_of_fold(fit: Fitter, x: Floats, y: npt.NDArray[np.bool_], splits: Sequence[Any]) -> Floats:
    """Each item's prediction by a model fitted without its fold."""
    predicted = np.empty(len(y), dtype=np.float64)
    for train, test in splits:
        if y[train].all() or not y[train].any():
            predicted[test] = float(y[train].mean())
            continue
        predicted[test] = fit(x[train], y[train]).predict(x[test])
    return predicted


@dataclass(frozen=True, slots=True)
class FitOptions:
    """How a calibration is fitted; the defaults are the ones chosen within the
    development sets' fit halves."""

    c: float = LOGISTIC_C
    prior: Mapping[str, float] = field(default_factory=lambda: PRIOR_WEIGHTS)
    singles: Sequence[str] = SINGLE_SIGNALS


CHOSEN = FitOptions()


@dataclass(frozen=True, slots=True)
class Chosen:
    """The candidate that ranked the labels best out of fold, refitted on every item, and
    its out-of-fold predictions."""

    model: LogisticModel | IsotonicModel
    out_of_fold: Floats
    folds: int


def _candidates(names: Sequence[str], options: FitOptions) -> list[tuple[Fitter, list[int]]]:
    """Each candidate's fitter and the columns of ``names`` it reads."""
    columns = list(names)
    found: list[tuple[Fitter, list[int]]] = [
        (fit_logistic(names, options.c, options.prior), list(range(len(names))))
    ]
    if len(names) > 1:
        found += [
            (fit_logistic([name], options.c, options.prior), [columns.index(name)])
            for name in options.singles
            if name in names
        ]
    return [*found, (fit_isotonic, [columns.index("score")])]


def _ranking(predicted: Floats, y: npt.NDArray[np.bool_]) -> tuple[float, float]:
    """A candidate's sort key: higher out-of-fold AUROC first, then lower Brier."""
    from sklearn.metrics import roc_auc_score

    return -float(roc_auc_score(y, predicted)), float(np.mean((predicted - y) ** 2))


def fit_best(
    x: Floats,
    y: npt.NDArray[np.bool_],
    names: Sequence[str],
    groups: Sequence[str | None] | None = None,
    *,
    folds: int = FOLDS,
    seed: int = SEED,
    options: FitOptions = CHOSEN,
) -> Chosen:
    """Choose among the candidates by cross-validation, then fit the chosen one on every
    item. ``x`` has a column per signal of ``names``."""
    splits = _folds(y, groups, folds, seed)
    candidates = _candidates(names, options)
    predictions = [out_of_fold(fit, x[:, columns], y, splits) for fit, columns in candidates]
    best = min(range(len(candidates)), key=lambda i: _ranking(predictions[i], y))
    fit, columns = candidates[best]
    return Chosen(fit(x[:, columns], y), predictions[best], len(splits))


def calibrate_metric(
    joined: Joined,
    samples: Mapping[tuple[str, str | None], Sample] | None = None,
    *,
    threshold: float,
    folds: int = FOLDS,
    seed: int = SEED,
) -> MetricCalibration:
    """Fit ``joined``'s metric to its labels; raises :class:`CalibrationError` when the
    labels cannot support a fit."""
    pairs = [p for p in joined.pairs if p.label.positive is not None]
    names = signal_names(joined.metric)
    x = np.asarray(signal_matrix([p.records for p in pairs], names, samples), dtype=np.float64)
    y = np.asarray([bool(p.label.positive) for p in pairs], dtype=bool)
    return fit_calibration(
        joined.metric, joined.target, x, y, [p.label.group for p in pairs],
        threshold=threshold, folds=folds, seed=seed,
    )  # fmt: skip


def fit_calibration(
    metric: str,
    target: str,
    x: Floats,
    y: npt.NDArray[np.bool_],
    groups: Sequence[str | None],
    *,
    threshold: float,
    folds: int = FOLDS,
    seed: int = SEED,
) -> MetricCalibration:
    """Fit ``metric``'s signals ``x`` (a column per signal of the metric) to the labels
    ``y``, with the out-of-fold figures that say whether it helps."""
    names = signal_names(metric)
    chosen = fit_best(x, y, names, groups, folds=folds, seed=seed)
    raw = x[:, names.index("score")]
    figures = paired_figures(
        list(raw), list(chosen.out_of_fold), list(y), threshold_a=threshold, threshold_b=0.5,
        groups=list(groups), seed=seed,
    )  # fmt: skip
    auroc, brier, ece = figures["auroc"], figures.get("brier"), figures.get("ece")
    cv = CrossValidated(
        folds=chosen.folds,
        auroc_raw=auroc.a,
        auroc_calibrated=auroc.b,
        auroc_diff=auroc.diff,
        auroc_diff_ci95=auroc.ci95,
        brier_raw=brier.a if brier else None,
        brier_calibrated=brier.b if brier else None,
        brier_diff=brier.diff if brier else None,
        brier_diff_ci95=brier.ci95 if brier else None,
        ece_raw=ece.a if ece else None,
        ece_calibrated=ece.b if ece else None,
    )
    helps, verdict = _verdict(cv, len(y))
    return MetricCalibration(
        metric=metric,
        target=target,
        n=len(y),
        n_positive=int(y.sum()),
        model=chosen.model,
        cv=cv,
        helps=helps,
        verdict=verdict,
    )


def _verdict(cv: CrossValidated, n: int) -> tuple[bool, str]:
    if cv.brier_diff is None or cv.auroc_diff is None:
        return False, "not enough labels of both kinds to tell whether it helps"
    better_brier = cv.brier_diff < 0
    auroc_ok = cv.auroc_diff >= -AUROC_TOLERANCE
    figures = (
        f"cross-validated AUROC {cv.auroc_raw:.3f} → {cv.auroc_calibrated:.3f}, "
        f"Brier {cv.brier_raw:.3f} → {cv.brier_calibrated:.3f}"
    )
    if not (better_brier and auroc_ok):
        return False, f"does not help: {figures}"
    cautions = []
    if cv.brier_diff_ci95 is not None and cv.brier_diff_ci95[1] >= 0:
        cautions.append("the Brier difference's 95 % interval reaches 0")
    if n < FEW_LABELS:
        cautions.append(
            f"only {n} labelled items, and below {FEW_LABELS} a fit is unreliable: "
            "label more before relying on it"
        )
    return True, "; ".join([f"helps: {figures}", *cautions])
