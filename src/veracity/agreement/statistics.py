"""How well a metric's scores agree with people's labels, with bootstrap intervals.

Point figures come from scikit-learn and scipy; the intervals from a seeded percentile
bootstrap (``veracity.agreement.bootstrap``) that resamples whole groups — items that are
not independent, such as the claims of one answer — or single items without groups.

Nothing here returns NaN: what cannot be computed (one class only, fewer than two items,
constant scores for Spearman) is ``None`` with a ``reason``. A score ``>= threshold``
predicts "positive" (people agree / the answer is supported).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.stats import spearmanr
from sklearn.calibration import calibration_curve
from sklearn.metrics import (
    balanced_accuracy_score,
    brier_score_loss,
    cohen_kappa_score,
    confusion_matrix,
    roc_auc_score,
    roc_curve,
)
from sklearn.model_selection import StratifiedGroupKFold, StratifiedKFold

from veracity.agreement.bootstrap import (
    BINS,
    Bools,
    Floats,
    Ints,
    Labels,
    Side,
    bootstrap,
    calibration_bins,
    percentile_interval,
    side,
    ties,
)
from veracity.agreement.model import Estimate, Figures, PairedEstimate
from veracity.labels.scale import MAX_GRADES
from veracity.report.statistics import CONFIDENCE, SEED

RESAMPLES = 1_000
FOLDS = 5
# Balanced accuracies closer than this are ties (real differences are ≥ 1/(P·N) ≫ this).
_TIE = 1e-12

BOTH_CLASSES = "needs both positive and negative labels"
FEW_ITEMS = "needs at least 2 items"
_NO_RESAMPLING = "needs at least 2 groups (items) to resample"


# ---------------------------------------------------------------- inputs


def _labels(
    positives: Sequence[bool],
    n: int,
    values: Sequence[float] | None,
    grade_scale: tuple[float, float] | None,
    groups: Sequence[str | None] | None,
) -> Labels:
    positive = np.asarray(positives, dtype=bool).reshape(-1)
    if len(positive) != n:
        raise ValueError("positives must give one label per score")
    value_array = None
    if values is not None:
        value_array = np.asarray(values, dtype=np.float64).reshape(-1)
        if len(value_array) != n or not np.all(np.isfinite(value_array)):
            raise ValueError("values must give one finite value per score")
    grades, levels = None, 0
    if grade_scale is not None:
        if value_array is None:
            raise ValueError("grade_scale needs the grades as values")
        grades, levels = _grade_steps(value_array, grade_scale)
    if groups is None:
        group = np.arange(n, dtype=np.intp)
    else:
        if len(groups) != n:
            raise ValueError("groups must give one group (or None) per score")
        # Named groups first, then every unnamed item as a group of its own.
        ids: dict[str, int] = {}
        named = [-1 if g is None else ids.setdefault(g, len(ids)) for g in groups]
        group = np.asarray(named, dtype=np.intp)
        loose = group < 0
        group[loose] = len(ids) + np.arange(int(loose.sum()), dtype=np.intp)
    n_groups = int(group.max()) + 1 if n else 0
    value_ties = None if value_array is None else ties(value_array)
    return Labels(positive, value_array, value_ties, grades, levels, group, n_groups, n_groups < n)


def _grade_steps(values: Floats, grade_scale: tuple[float, float]) -> tuple[Floats, int]:
    """Each label's grades above the scale's low end — whole, or a half step where an
    item's annotators' median falls between two grades — and the grades on the scale."""
    low, high = float(grade_scale[0]), float(grade_scale[1])
    span = high - low
    if not (span > 0 and span.is_integer() and span < MAX_GRADES):
        raise ValueError(
            f"grade_scale needs low < high a whole number of grades apart, at most {MAX_GRADES}"
        )
    halves = np.round((values - low) * 2)
    if np.any(np.abs(halves - (values - low) * 2) > 1e-9):
        raise ValueError("grades must be whole (or, for a median of two, half) steps from low")
    if np.any((halves < 0) | (halves > 2 * span)):
        raise ValueError("a grade lies outside grade_scale")
    steps: Floats = halves / 2
    return steps, int(span) + 1


def _side(
    scores: Sequence[float], threshold: float, probability_like: bool, labels: Labels, seed: int
) -> tuple[Side, str | None]:
    """The metric's side of the bootstrap, and why it has no cross-validated predictions."""
    array = np.asarray(scores, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(array)):
        raise ValueError("scores must be finite")
    if probability_like and np.any((array < 0) | (array > 1)):
        raise ValueError("probability-like scores must lie in [0, 1]")
    out_of_fold, cv_reason = _out_of_fold(array, labels, seed)
    predicted_grades = None
    if labels.grades is not None:
        # round(low + score·(high − low)) − low, rounded half up: equal distances from two
        # grades always go to the higher one.
        mapped = np.floor(np.clip(array, 0.0, 1.0) * (labels.levels - 1) + 0.5)
        predicted_grades = mapped.astype(np.intp)
    one = side(array, array >= threshold, out_of_fold, predicted_grades, probability_like, labels)
    return one, cv_reason


# ---------------------------------------------------------------- thresholds


def best_threshold(scores: Floats, positive: Bools) -> float | None:
    """The threshold (positive when score >= it) that maximises balanced accuracy.

    Candidates are the distinct scores; among tied ones the middle (the higher of two
    middles). The result is then moved down to the middle of the gap below the chosen
    score: every threshold in that gap predicts the same on these items, and the middle
    splits unseen scores fairly (so separable data stay separated under cross-validation).
    ``None`` without both classes."""
    if positive.all() or not positive.any():
        return None
    # With drop_intermediate=False the thresholds are the distinct scores, descending,
    # after a leading ∞.
    fpr, tpr, thresholds = roc_curve(positive, scores, drop_intermediate=False)
    candidates = thresholds[1:]
    accuracy = (tpr[1:] + 1 - fpr[1:]) / 2
    tied = np.flatnonzero(accuracy >= accuracy.max() - _TIE)
    index = int(tied[(len(tied) - 1) // 2])
    chosen = float(candidates[index])
    if index + 1 == len(candidates):
        return chosen
    lower = float(candidates[index + 1])
    middle = (chosen + lower) / 2
    # Adjacent floats: the middle may round onto the lower score, which would change
    # a prediction.
    return middle if middle > lower else chosen


def _out_of_fold(scores: Floats, labels: Labels, seed: int) -> tuple[Bools | None, str | None]:
    """Out-of-fold predictions, each fold thresholded at the best threshold of the others."""
    positive = labels.positive
    if labels.grouped:
        # Folds hold whole groups, so count classes in groups.
        smallest = min(
            len(np.unique(labels.group[positive])), len(np.unique(labels.group[~positive]))
        )
    else:
        smallest = min(int(positive.sum()), int((~positive).sum()))
    folds = min(FOLDS, smallest)
    if folds < 2:
        return None, "needs at least 2 items (groups) of each class for cross-validation"
    random_state = seed % 2**32
    features = scores[:, None]
    if labels.grouped:
        splits = StratifiedGroupKFold(folds, shuffle=True, random_state=random_state).split(
            features, positive, labels.group
        )
    else:
        splits = StratifiedKFold(folds, shuffle=True, random_state=random_state).split(
            features, positive
        )
    predicted = np.zeros(len(scores), dtype=bool)
    for train, test in splits:
        threshold = best_threshold(scores[train], positive[train])
        if threshold is None:
            return None, "a cross-validation training fold lacked a class"
        predicted[test] = scores[test] >= threshold
    return predicted, None


# ---------------------------------------------------------------- point figures

_Point = tuple[float | None, str | None]


def _points(one: Side, labels: Labels, cv_reason: str | None) -> dict[str, _Point]:
    """Every applicable figure on all items, from scikit-learn and scipy."""
    positive, scores = labels.positive, one.scores
    names = ["auroc", "balanced_accuracy", "balanced_accuracy_cv", "kappa"]
    names += ["spearman"] if labels.values is not None else []
    names += ["weighted_kappa"] if labels.grades is not None else []
    names += ["brier", "ece"] if one.probability_like else []
    if len(scores) < 2:
        return dict.fromkeys(names, (None, FEW_ITEMS))
    # Keys in the order of `names`; every one is filled below.
    points: dict[str, _Point] = dict.fromkeys(names, (None, None))
    if positive.all() or not positive.any():
        for name in ("auroc", "balanced_accuracy", "balanced_accuracy_cv", "kappa"):
            points[name] = (None, BOTH_CLASSES)
    else:
        points["auroc"] = (float(roc_auc_score(positive, scores)), None)
        points["balanced_accuracy"] = (
            float(balanced_accuracy_score(positive, one.predicted)),
            None,
        )
        # With both classes the chance agreement is below 1, so kappa is defined.
        points["kappa"] = (float(cohen_kappa_score(positive, one.predicted)), None)
        if one.out_of_fold is None:
            points["balanced_accuracy_cv"] = (None, cv_reason)
        else:
            value = balanced_accuracy_score(positive, one.out_of_fold)
            points["balanced_accuracy_cv"] = (float(value), None)
    if labels.values is not None:
        points["spearman"] = _spearman(scores, labels.values)
    if labels.grades is not None and one.predicted_grades is not None:
        points["weighted_kappa"] = _weighted_kappa(
            labels.grades, one.predicted_grades, labels.levels
        )
    if one.probability_like:
        truth = positive.astype(np.intp)
        points["brier"] = (float(brier_score_loss(truth, scores, labels=[0, 1])), None)
        points["ece"] = (_expected_calibration_error(scores, positive), None)
    return points


def _weighted_kappa(grades: Floats, predicted: Ints, levels: int) -> _Point:
    # An item whose median lies between two grades counts half at each (the two middle
    # votes), so a 3-and-4 item is neither rounded up nor down.
    truth = np.concatenate([np.floor(grades), np.ceil(grades)]).astype(np.intp)
    if np.ptp(truth) == 0 and np.ptp(predicted) == 0 and truth[0] == predicted[0]:
        # Undefined only when every grade and every mapped score is one and the same grade.
        return None, "the grades and the mapped scores are all one and the same grade"
    kappa = cohen_kappa_score(
        truth,
        np.concatenate([predicted, predicted]),
        labels=np.arange(levels),
        weights="quadratic",
        sample_weight=np.full(len(truth), 0.5),
    )
    return float(kappa), None


def _spearman(scores: Floats, values: Floats) -> _Point:
    if np.ptp(scores) == 0:
        return None, "the scores are constant"
    if np.ptp(values) == 0:
        return None, "the label values are constant"
    return float(spearmanr(scores, values).statistic), None


def _reliability(scores: Floats, positive: Bools) -> list[dict[str, float | int]]:
    """The non-empty bins of the reliability diagram, from scikit-learn's curve."""
    rate, mean = calibration_curve(
        positive.astype(np.intp), scores, n_bins=BINS, strategy="uniform"
    )
    counts = np.bincount(calibration_bins(scores), minlength=BINS)
    edges = np.linspace(0.0, 1.0, BINS + 1)
    filled = np.flatnonzero(counts)
    return [
        {
            "low": round(float(edges[b]), 12),
            "high": round(float(edges[b + 1]), 12),
            "n": int(counts[b]),
            "mean_score": float(m),
            "positive_rate": float(r),
        }
        for b, m, r in zip(filled, mean, rate, strict=True)
    ]


def _expected_calibration_error(scores: Floats, positive: Bools) -> float:
    """Σ over bins of (share of items) × |mean score − positive rate|."""
    rows = _reliability(scores, positive)
    total = sum(int(row["n"]) for row in rows)
    return float(
        sum(
            int(r["n"]) / total * abs(float(r["mean_score"]) - float(r["positive_rate"]))
            for r in rows
        )
    )


# ---------------------------------------------------------------- intervals


def _interval_reason(used: int, requested: int) -> str:
    return f"only {used} of {requested} resamples gave a value"


def _estimate(
    point: _Point, replicates: Floats | None, requested: int, confidence: float
) -> Estimate:
    value, reason = point
    if value is None:
        return Estimate(None, None, reason)
    if replicates is None:
        return Estimate(value, None, _NO_RESAMPLING)
    interval, used = percentile_interval(replicates, requested, confidence)
    return Estimate(value, interval, None if interval else _interval_reason(used, requested))


# ---------------------------------------------------------------- public API


def agreement_figures(  # noqa: PLR0913 - the figures' options, each with its default
    scores: Sequence[float],
    positives: Sequence[bool],
    *,
    threshold: float,
    values: Sequence[float] | None = None,
    grade_scale: tuple[float, float] | None = None,
    probability_like: bool = True,
    groups: Sequence[str | None] | None = None,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    confidence: float = CONFIDENCE,
) -> Figures:
    """The agreement of ``scores`` with people's labels ``positives``.

    ``values``: the label values (grades, or probabilities people gave) for Spearman and,
    with ``grade_scale=(low, high)``, the quadratic-weighted kappa of the score mapped onto
    the grades. ``probability_like``: the scores are probabilities (then Brier, ECE and the
    reliability diagram). ``groups``: items sharing a group are resampled together; a
    ``None`` group is the item's own. Same inputs and seed, same intervals.
    """
    labels = _labels(positives, len(scores), values, grade_scale, groups)
    one, cv_reason = _side(scores, threshold, probability_like, labels, seed)
    points = _points(one, labels, cv_reason)
    (replicates,), used = bootstrap([one], labels, resamples, seed)

    def estimate(name: str) -> Estimate:
        return _estimate(points[name], replicates.get(name), resamples, confidence)

    def optional(name: str) -> Estimate | None:
        return estimate(name) if name in points else None

    positive, n = labels.positive, len(one.scores)
    tn, fp, fn, tp = (
        (int(c) for c in confusion_matrix(positive, one.predicted, labels=[False, True]).ravel())
        if n
        else (0, 0, 0, 0)
    )
    roc: tuple[tuple[float, float], ...] = ()
    if positive.any() and not positive.all():
        fpr, tpr, _ = roc_curve(positive, one.scores)
        roc = tuple((float(x), float(y)) for x, y in zip(fpr, tpr, strict=True))
    return Figures(
        n=n,
        n_positive=int(positive.sum()),
        base_rate=float(positive.mean()) if n else None,
        threshold=threshold,
        auroc=estimate("auroc"),
        balanced_accuracy=estimate("balanced_accuracy"),
        best_threshold=best_threshold(one.scores, positive),
        balanced_accuracy_cv=estimate("balanced_accuracy_cv"),
        kappa=estimate("kappa"),
        weighted_kappa=optional("weighted_kappa"),
        spearman=optional("spearman"),
        brier=optional("brier"),
        ece=optional("ece"),
        confusion={"tp": tp, "fp": fp, "tn": tn, "fn": fn},
        roc=roc,
        reliability=tuple(_reliability(one.scores, positive)) if probability_like and n else (),
        resamples=used,
        resamples_drawn=resamples if labels.n_groups >= 2 else 0,
    )


def paired_figures(  # noqa: PLR0913 - two runs' options side by side, each with its default
    scores_a: Sequence[float],
    scores_b: Sequence[float],
    positives: Sequence[bool],
    *,
    threshold_a: float,
    threshold_b: float,
    values: Sequence[float] | None = None,
    grade_scale: tuple[float, float] | None = None,
    probability_like_a: bool = True,
    probability_like_b: bool = True,
    groups: Sequence[str | None] | None = None,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    confidence: float = CONFIDENCE,
) -> dict[str, PairedEstimate]:
    """Metric B against metric A on the same items and labels: each figure both share,
    and the paired-bootstrap interval of B − A (both evaluated on the same resamples).

    Keys: auroc, balanced_accuracy, balanced_accuracy_cv, kappa; spearman with
    ``values``; weighted_kappa with ``grade_scale``; brier and ece when both are
    probability-like."""
    if len(scores_a) != len(scores_b):
        raise ValueError("paired scores must have the same length")
    labels = _labels(positives, len(scores_a), values, grade_scale, groups)
    side_a, cv_reason_a = _side(scores_a, threshold_a, probability_like_a, labels, seed)
    side_b, cv_reason_b = _side(scores_b, threshold_b, probability_like_b, labels, seed)
    points_a = _points(side_a, labels, cv_reason_a)
    points_b = _points(side_b, labels, cv_reason_b)
    (reps_a, reps_b), _ = bootstrap([side_a, side_b], labels, resamples, seed)
    paired: dict[str, PairedEstimate] = {}
    for name, (a, reason_a) in points_a.items():
        if name not in points_b:
            continue
        b, reason_b = points_b[name]
        if a is None or b is None:
            paired[name] = PairedEstimate(a, b, None, None, reason_a or reason_b)
            continue
        if name not in reps_a or name not in reps_b:
            paired[name] = PairedEstimate(a, b, b - a, None, _NO_RESAMPLING)
            continue
        interval, used = percentile_interval(reps_b[name] - reps_a[name], resamples, confidence)
        why = None if interval else _interval_reason(used, resamples)
        paired[name] = PairedEstimate(a, b, b - a, interval, why)
    return paired
