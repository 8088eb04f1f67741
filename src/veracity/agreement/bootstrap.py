"""The grouped bootstrap behind the agreement figures, vectorised over resamples.

A resample is a row of item weights: how many times each item was drawn. Resampling
whole groups gives every item of a group its group's count. Each figure is then computed
for all rows at once from weighted sums — equal to computing it on the expanded
resample (the tests check this against scikit-learn and scipy), but without building it.

Undefined replicates (a resample with one class, constant ranks) are NaN here and are
dropped before the percentile interval; nothing NaN leaves the package.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]
Ints = npt.NDArray[np.intp]

# Weight-matrix elements per chunk of resamples (8 bytes each, a few temporaries alive),
# so memory stays bounded however many items there are.
CHUNK = 2_000_000
# Equal-width bins of the reliability diagram and the expected calibration error.
BINS = 10
# An interval from fewer usable resamples than this share of those drawn is not reported:
# the surviving resamples would describe a different population.
MIN_USABLE_SHARE = 0.5


@dataclass(frozen=True, slots=True)
class Ties:
    """The distinct values of a vector: sort order, where each run of ties starts (in
    sorted order) and each item's distinct-value index."""

    order: Ints
    starts: Ints
    inverse: Ints


def ties(values: Floats) -> Ties:
    distinct, inverse = np.unique(values, return_inverse=True)
    order = np.argsort(values, kind="stable")
    starts = np.searchsorted(values[order], distinct, side="left")
    return Ties(order.astype(np.intp), starts.astype(np.intp), inverse.astype(np.intp))


def calibration_bins(scores: Floats) -> Ints:
    """Each score's bin — scikit-learn's calibration_curve binning, so the ECE and the
    reliability diagram agree with it."""
    edges = np.linspace(0.0, 1.0, BINS + 1)
    return np.searchsorted(edges[1:-1], np.clip(scores, 0.0, 1.0)).astype(np.intp)


@dataclass(frozen=True, slots=True)
class Labels:
    """What both metrics of a comparison share: people's labels, label values, groups."""

    positive: Bools
    values: Floats | None
    value_ties: Ties | None
    grades: Floats | None  # grade − low when labels are grades (x.5: a median of two)
    levels: int  # grades on the scale (0 without grades)
    group: Ints
    n_groups: int
    grouped: bool  # some group holds more than one item


@dataclass(frozen=True, slots=True)
class Side:
    """One metric's scores and its predictions, fixed before resampling."""

    scores: Floats
    predicted: Bools
    out_of_fold: Bools | None
    predicted_grades: Ints | None
    probability_like: bool
    score_ties: Ties
    # Per-item columns whose weighted sums give every figure but AUROC and Spearman —
    # positive, negative, 2×2 confusion, 2×2 out-of-fold confusion, squared error,
    # per-bin (score − label), and the five grade moments of the quadratic-weighted κ
    # (see ``_grade_moments``) — stored columns × items, the way round OpenBLAS
    # multiplies several times faster.
    columns: Floats


_GRADED = 11 + BINS  # where the grade moments start in Side.columns


def _grade_moments(grades: Floats, predicted: Ints) -> Floats:
    """Per item (g − p)², g, g², p, p² for the people's grade g and the mapped score p,
    each the mean over the item's two middle grades (equal but for a median between two).

    Quadratic-weighted κ is 1 − observed / expected disagreement, with observed
    Σ w·(g − p)² and expected Σ w·g² + Σ w·p² − 2·(Σ w·g)(Σ w·p)/Σ w: scikit-learn's
    κ from the levels × levels confusion, from five weighted sums however many grades."""
    lower, upper, guess = np.floor(grades), np.ceil(grades), predicted.astype(np.float64)
    return np.column_stack(
        [
            ((lower - guess) ** 2 + (upper - guess) ** 2) / 2,
            grades,
            (lower**2 + upper**2) / 2,
            guess,
            guess**2,
        ]
    )


def side(
    scores: Floats,
    predicted: Bools,
    out_of_fold: Bools | None,
    predicted_grades: Ints | None,
    probability_like: bool,
    labels: Labels,
) -> Side:
    n, positive = len(scores), labels.positive
    truth = positive.astype(np.intp)
    blocks = [positive[:, None], ~positive[:, None], _one_hot(2 * truth + predicted, 4)]
    folded = np.zeros((n, 4)) if out_of_fold is None else _one_hot(2 * truth + out_of_fold, 4)
    error = scores - positive
    blocks += [
        folded,
        (error**2)[:, None],
        _one_hot(calibration_bins(scores), BINS) * error[:, None],
    ]
    if labels.grades is not None and predicted_grades is not None:
        blocks.append(_grade_moments(labels.grades, predicted_grades))
    columns = np.ascontiguousarray(np.hstack([np.asarray(b, dtype=np.float64) for b in blocks]).T)
    return Side(
        scores, predicted, out_of_fold, predicted_grades, probability_like, ties(scores), columns
    )


def _one_hot(index: Ints, width: int) -> Floats:
    return np.eye(width, dtype=np.float64)[index]


def resample_weights(group: Ints, n_groups: int, resamples: int, seed: int) -> Iterator[Floats]:
    """Chunks of item-weight rows, ``resamples`` rows in all: each row draws ``n_groups``
    groups with replacement and gives every item its group's count. Same seed, same rows."""
    rng = np.random.default_rng(seed)
    n = len(group)
    identity = n == n_groups and bool(np.all(group == np.arange(n)))
    step = max(1, CHUNK // max(n, n_groups))
    for start in range(0, resamples, step):
        size = min(resamples, start + step) - start
        picks = rng.integers(0, n_groups, size=(size, n_groups), dtype=np.int64)
        # One bincount for the whole chunk: offset each row's picks into its own block.
        offsets = (np.arange(size, dtype=np.int64) * n_groups)[:, None]
        flat = np.bincount((picks + offsets).ravel(), minlength=size * n_groups)
        counts: Floats = flat.reshape(size, n_groups).astype(np.float64)
        yield counts if identity else counts[:, group]


def _safe_divide(numerator: Floats, denominator: Floats) -> Floats:
    out = np.full(numerator.shape, np.nan)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def weighted_auroc(weights: Floats, scores: Ties, positive: Bools) -> Floats:
    """Per row, the Mann-Whitney AUROC of the weighted items: P(score of a positive >
    score of a negative) + ½·P(tie). NaN where a row lacks a class."""
    by_score = weights[:, scores.order]
    sorted_positive = positive[scores.order]
    pos = np.add.reduceat(np.where(sorted_positive, by_score, 0.0), scores.starts, axis=1)
    neg = np.add.reduceat(np.where(sorted_positive, 0.0, by_score), scores.starts, axis=1)
    # Negative weight strictly below each distinct score, plus half of the tied weight.
    beaten = np.cumsum(neg, axis=1) - 0.5 * neg
    wins = np.einsum("ij,ij->i", pos, beaten)
    return _safe_divide(wins, pos.sum(axis=1) * neg.sum(axis=1))


def _weighted_ranks(weights: Floats, values: Ties) -> Floats:
    """Each item's average rank (1-based, ties averaged) in the expanded resample."""
    per_value = np.add.reduceat(weights[:, values.order], values.starts, axis=1)
    ranks = np.cumsum(per_value, axis=1) - per_value + (per_value + 1) / 2
    return ranks[:, values.inverse]


def weighted_spearman(weights: Floats, x: Ties, y: Ties) -> Floats:
    """Per row, Spearman's rho of the expanded resample: the weighted Pearson correlation
    of the average ranks. NaN where either side is constant."""
    middle = (weights.sum(axis=1, keepdims=True) + 1) / 2  # the mean of ranks 1…T
    dx = _weighted_ranks(weights, x) - middle
    dy = _weighted_ranks(weights, y) - middle
    weighted_dx = weights * dx
    covariance = np.einsum("ij,ij->i", weighted_dx, dy)
    spread = np.einsum("ij,ij->i", weighted_dx, dx) * np.einsum("ij,ij->i", weights * dy, dy)
    rho = _safe_divide(covariance, np.sqrt(spread))
    return np.clip(rho, -1.0, 1.0)


def kappa_from_confusion(confusion: Floats, disagreement: Floats) -> Floats:
    """Per row of ``confusion`` (rows × k × k, true × predicted), Cohen's kappa with the
    given disagreement weights (1 − identity: plain; squared distance: quadratic), in
    scikit-learn's form 1 − observed / expected disagreement. NaN where expected is 0."""
    total = confusion.sum(axis=(1, 2))
    expected = np.einsum("ri,rj->rij", confusion.sum(axis=2), confusion.sum(axis=1))
    expected_sum = _safe_divide(np.einsum("rij,ij->r", expected, disagreement), total)
    observed = np.einsum("rij,ij->r", confusion, disagreement)
    return 1.0 - _safe_divide(observed, expected_sum)


def percentile_interval(
    replicates: Floats, requested: int, confidence: float
) -> tuple[tuple[float, float] | None, int]:
    """The percentile interval of the defined replicates, and how many there were.

    ``None`` when fewer than ``MIN_USABLE_SHARE`` of the ``requested`` resamples (or
    fewer than two) gave a value."""
    usable = replicates[np.isfinite(replicates)]
    if usable.size < max(2, int(np.ceil(MIN_USABLE_SHARE * requested))):
        return None, int(usable.size)
    tail = 100 * (1 - confidence) / 2
    low, high = np.percentile(usable, [tail, 100 - tail])
    return (float(low), float(high)), int(usable.size)


_PLAIN = 1.0 - np.eye(2)


def _balanced_accuracy(confusion: Floats) -> Floats:
    # confusion: rows × true × predicted.
    recall = confusion[:, 1, 1] / confusion[:, 1, :].sum(axis=1)
    specificity = confusion[:, 0, 0] / confusion[:, 0, :].sum(axis=1)
    result: Floats = (recall + specificity) / 2
    return result


def replicates(side: Side, labels: Labels, weights: Floats) -> dict[str, Floats]:
    """Every applicable figure for each row of item weights (NaN where undefined)."""
    sums = (side.columns @ weights.T).T
    both = (sums[:, 0] > 0) & (sums[:, 1] > 0)
    total = sums[:, 0] + sums[:, 1]
    out: dict[str, Floats] = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        confusion = sums[:, 2:6].reshape(-1, 2, 2)
        out["auroc"] = weighted_auroc(weights, side.score_ties, labels.positive)
        out["balanced_accuracy"] = np.where(both, _balanced_accuracy(confusion), np.nan)
        out["kappa"] = np.where(both, kappa_from_confusion(confusion, _PLAIN), np.nan)
        if side.out_of_fold is not None:
            folded = sums[:, 6:10].reshape(-1, 2, 2)
            out["balanced_accuracy_cv"] = np.where(both, _balanced_accuracy(folded), np.nan)
        if side.probability_like:
            out["brier"] = sums[:, 10] / total
            out["ece"] = np.abs(sums[:, 11:_GRADED]).sum(axis=1) / total
        if labels.grades is not None:
            observed, grade, grade_sq, guess, guess_sq = sums[:, _GRADED : _GRADED + 5].T
            expected = grade_sq + guess_sq - 2 * _safe_divide(grade * guess, total)
            out["weighted_kappa"] = 1.0 - _safe_divide(observed, expected)
        if labels.value_ties is not None:
            out["spearman"] = weighted_spearman(weights, side.score_ties, labels.value_ties)
    return out


def bootstrap(
    sides: Sequence[Side], labels: Labels, resamples: int, seed: int
) -> tuple[list[dict[str, Floats]], int]:
    """Replicates of every figure of each side over the same resamples, and how many
    resamples held both classes. Nothing (and 0) with fewer than two groups."""
    parts: list[dict[str, list[Floats]]] = [{} for _ in sides]
    usable = 0
    if labels.n_groups < 2 or resamples < 1:
        return [{} for _ in sides], 0
    positive = labels.positive.astype(np.float64)
    for weights in resample_weights(labels.group, labels.n_groups, resamples, seed):
        held = weights @ positive
        usable += int(np.count_nonzero((held > 0) & (weights.sum(axis=1) > held)))
        for one, part in zip(sides, parts, strict=True):
            for name, values in replicates(one, labels, weights).items():
                part.setdefault(name, []).append(values)
    return [{k: np.concatenate(v) for k, v in part.items()} for part in parts], usable
