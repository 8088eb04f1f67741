"""The agreement figures against scikit-learn / scipy and values worked out by hand."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from scipy.stats import spearmanr
from sklearn.calibration import calibration_curve
from sklearn.metrics import (
    balanced_accuracy_score,
    brier_score_loss,
    cohen_kappa_score,
    roc_auc_score,
    roc_curve,
)

from veracity.agreement import bootstrap as boot
from veracity.agreement.model import Estimate, Figures
from veracity.agreement.statistics import (
    BOTH_CLASSES,
    FEW_ITEMS,
    _labels,
    _side,
    agreement_figures,
    best_threshold,
    paired_figures,
)

# Six items: positives score 0.35, 0.8, 0.65; negatives 0.1, 0.35, 0.2 (one tie at 0.35).
# AUROC: of the 9 (positive, negative) pairs the positive wins 8 and ties 1 → 8.5 / 9.
# At 0.5: TP 2, FN 1, TN 3, FP 0 → BA (2/3 + 1) / 2 = 5/6; κ: po 5/6, pe ½ → 2/3.
# Best threshold: 0.35 and 0.65 both give BA 5/6 → the higher middle, 0.65, moved to the
# middle of the gap below it: (0.35 + 0.65) / 2.
# Brier: (.01 + .1225 + .4225 + .04 + .1225 + .04) / 6 = 0.7575 / 6.
# ECE bins [0, .1], (.1, .2], (.3, .4], (.6, .7], (.7, .8]: gaps .1, .2, .15 (×2), .35, .2.
SCORES = [0.1, 0.35, 0.35, 0.8, 0.65, 0.2]
LABELS = [False, False, True, True, True, False]


def _random(n: int, seed: int = 7, *, decimals: int = 2) -> tuple[Any, Any, Any]:
    rng = np.random.default_rng(seed)
    positive = rng.random(n) < 0.4
    # Rounded so that ties occur.
    scores = np.round(np.clip(0.25 * positive + 0.75 * rng.random(n), 0, 1), decimals)
    grades = np.clip(np.round(1 + 4 * scores + rng.normal(0, 1, n)), 1, 5)
    return scores, positive, grades


def _no_nan(value: Any) -> None:
    json.dumps(value, allow_nan=False)  # raises on NaN or ∞ anywhere


def test_hand_worked_six_items() -> None:
    figures = agreement_figures(SCORES, LABELS, threshold=0.5)
    assert figures.n == 6 and figures.n_positive == 3 and figures.base_rate == 0.5
    assert figures.auroc.value == pytest.approx(8.5 / 9)
    assert figures.balanced_accuracy.value == pytest.approx(5 / 6)
    assert figures.kappa.value == pytest.approx(2 / 3)
    assert figures.best_threshold == pytest.approx(0.5)
    assert figures.brier is not None and figures.brier.value == pytest.approx(0.7575 / 6)
    assert figures.ece is not None
    assert figures.ece.value == pytest.approx((0.1 + 0.2 + 0.3 + 0.35 + 0.2) / 6)
    assert figures.confusion == {"tp": 2, "fp": 0, "tn": 3, "fn": 1}
    # Three positives and three negatives: 2 folds, one threshold each, and the data are
    # nearly separable, so the cross-validated BA is well above chance.
    assert figures.balanced_accuracy_cv.value is not None
    assert [row["n"] for row in figures.reliability] == [1, 1, 2, 1, 1]
    assert figures.reliability[2] == {
        "low": 0.3,
        "high": 0.4,
        "n": 2,
        "mean_score": pytest.approx(0.35),
        "positive_rate": 0.5,
    }
    assert figures.roc[0] == (0.0, 0.0) and figures.roc[-1] == (1.0, 1.0)
    assert figures.spearman is None and figures.weighted_kappa is None


def test_point_figures_equal_sklearn_on_random_data() -> None:
    scores, positive, grades = _random(300)
    figures = agreement_figures(
        scores.tolist(),
        positive.tolist(),
        threshold=0.5,
        values=grades.tolist(),
        grade_scale=(1, 5),
        resamples=50,
    )
    predicted = scores >= 0.5
    assert figures.auroc.value == pytest.approx(roc_auc_score(positive, scores), abs=1e-15)
    assert figures.balanced_accuracy.value == pytest.approx(
        balanced_accuracy_score(positive, predicted), abs=1e-15
    )
    assert figures.kappa.value == pytest.approx(cohen_kappa_score(positive, predicted))
    assert figures.brier is not None and figures.brier.value == pytest.approx(
        brier_score_loss(positive, scores)
    )
    mapped = np.floor(1 + scores * 4 + 0.5).astype(int)
    assert figures.weighted_kappa is not None
    assert figures.weighted_kappa.value == pytest.approx(
        cohen_kappa_score(grades.astype(int), mapped, weights="quadratic", labels=[1, 2, 3, 4, 5])
    )
    assert figures.spearman is not None
    assert figures.spearman.value == pytest.approx(spearmanr(scores, grades).statistic)
    rate, mean = calibration_curve(positive, scores, n_bins=10)
    counts = np.bincount(np.searchsorted(np.linspace(0, 1, 11)[1:-1], scores), minlength=10)
    expected_ece = float(np.sum(counts[counts > 0] / len(scores) * np.abs(mean - rate)))
    assert figures.ece is not None and figures.ece.value == pytest.approx(expected_ece)
    fpr, tpr, _ = roc_curve(positive, scores)
    assert figures.roc == tuple(zip(fpr.tolist(), tpr.tolist(), strict=True))
    tp = int(np.sum(positive & predicted))
    assert figures.confusion["tp"] == tp
    assert sum(figures.confusion.values()) == 300


def test_best_threshold_is_the_best_balanced_accuracy() -> None:
    scores, positive, _ = _random(200, seed=3, decimals=1)
    chosen = best_threshold(scores, positive)
    assert chosen is not None
    by_candidate = [balanced_accuracy_score(positive, scores >= t) for t in set(scores.tolist())]
    assert balanced_accuracy_score(positive, scores >= chosen) == pytest.approx(max(by_candidate))
    # In the middle of a gap between two distinct scores.
    distinct = np.unique(scores)
    above = distinct[distinct > chosen].min()
    below = distinct[distinct < chosen].max()
    assert chosen == pytest.approx((above + below) / 2)


def test_best_threshold_ties_go_to_the_middle() -> None:
    # Alternating labels: thresholds 0.2, 0.4 and 0.6 all give BA 2/3; the middle one, 0.4,
    # moved into the gap below it → 0.35.
    scores = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    positive = np.array([False, True, False, True, False, True])
    assert best_threshold(scores, positive) == pytest.approx(0.35)
    # Separable: only 0.4 is perfect → between 0.3 and 0.4.
    positive = np.array([False, False, False, True, True, True])
    assert best_threshold(scores, positive) == pytest.approx(0.35)
    # Scores backwards: the lowest score (all positive, BA ½) is best; nothing below it.
    assert best_threshold(np.array([0.2, 0.9]), np.array([True, False])) == 0.2
    assert best_threshold(scores, np.ones(6, dtype=bool)) is None


def _weights(n: int, draws: int, seed: int) -> tuple[Any, Any]:
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, n, size=(draws, n))
    weights = np.stack([np.bincount(row, minlength=n) for row in picks]).astype(np.float64)
    return picks, weights


def test_vectorised_bootstrap_equals_sklearn_on_resamples() -> None:
    scores, positive, grades = _random(120, seed=11, decimals=1)
    labels = _labels(positive.tolist(), 120, grades.tolist(), (1, 5), None)
    side, _ = _side(scores.tolist(), 0.5, True, labels, seed=1)
    picks, weights = _weights(120, 50, seed=5)
    replicates = boot.replicates(side, labels, weights)
    assert side.out_of_fold is not None and side.predicted_grades is not None
    for row, index in enumerate(picks):
        s, y, g = scores[index], positive[index], grades[index]
        assert replicates["auroc"][row] == pytest.approx(roc_auc_score(y, s), abs=1e-12)
        assert replicates["balanced_accuracy"][row] == pytest.approx(
            balanced_accuracy_score(y, s >= 0.5), abs=1e-12
        )
        assert replicates["balanced_accuracy_cv"][row] == pytest.approx(
            balanced_accuracy_score(y, side.out_of_fold[index]), abs=1e-12
        )
        assert replicates["kappa"][row] == pytest.approx(cohen_kappa_score(y, s >= 0.5), abs=1e-12)
        assert replicates["weighted_kappa"][row] == pytest.approx(
            cohen_kappa_score(
                g.astype(int),
                side.predicted_grades[index] + 1,
                weights="quadratic",
                labels=[1, 2, 3, 4, 5],
            ),
            abs=1e-12,
        )
        assert replicates["spearman"][row] == pytest.approx(spearmanr(s, g).statistic, abs=1e-12)
        assert replicates["brier"][row] == pytest.approx(brier_score_loss(y, s), abs=1e-12)
        rate, mean = calibration_curve(y, s, n_bins=10)
        counts = np.bincount(boot.calibration_bins(s), minlength=10)
        ece = np.sum(counts[counts > 0] / len(s) * np.abs(mean - rate))
        assert replicates["ece"][row] == pytest.approx(ece, abs=1e-12)


def _split_kappa(grades: Any, predicted: Any) -> float:
    """scikit-learn's quadratic κ with each half-step grade counted half at each side."""
    truth = np.concatenate([np.floor(grades), np.ceil(grades)]).astype(int)
    return float(
        cohen_kappa_score(
            truth,
            np.concatenate([predicted, predicted]),
            weights="quadratic",
            labels=[0, 1, 2, 3, 4],
            sample_weight=np.full(len(truth), 0.5),
        )
    )


def test_a_median_between_two_grades_counts_half_at_each() -> None:
    # Two annotators graded items 3 and 4: the median 3.5 is no grade of the scale.
    scores, positive, grades = _random(90, seed=17)
    grades[::4] = np.clip(grades[::4] + 0.5, 1, 5)
    figures = agreement_figures(
        scores.tolist(), positive.tolist(), threshold=0.5, values=grades.tolist(),
        grade_scale=(1, 5), resamples=100,
    )  # fmt: skip
    mapped = np.floor(scores * 4 + 0.5).astype(int)
    assert figures.weighted_kappa is not None and figures.weighted_kappa.ci95 is not None
    assert figures.weighted_kappa.value == pytest.approx(_split_kappa(grades - 1, mapped))
    # Spearman ranks the half step between its two grades.
    assert figures.spearman is not None
    assert figures.spearman.value == pytest.approx(spearmanr(scores, grades).statistic)
    labels = _labels(positive.tolist(), 90, grades.tolist(), (1, 5), None)
    side, _ = _side(scores.tolist(), 0.5, True, labels, seed=1)
    picks, weights = _weights(90, 30, seed=3)
    replicates = boot.replicates(side, labels, weights)["weighted_kappa"]
    assert side.predicted_grades is not None
    for row, index in enumerate(picks):
        expected = _split_kappa(grades[index] - 1, side.predicted_grades[index])
        assert replicates[row] == pytest.approx(expected, abs=1e-12)


def test_a_grade_off_the_half_steps_is_refused() -> None:
    with pytest.raises(ValueError, match="half"):
        agreement_figures([0.1, 0.9], [False, True], threshold=0.5, values=[1.25, 4],
                          grade_scale=(1, 5))  # fmt: skip
    with pytest.raises(ValueError, match="whole number of grades"):
        agreement_figures([0.1, 0.9], [False, True], threshold=0.5, values=[1, 4],
                          grade_scale=(1, 4.5))  # fmt: skip


def test_vectorised_auroc_with_one_class_rows_is_undefined() -> None:
    positive = np.array([True, False, True])
    scores = boot.ties(np.array([0.9, 0.2, 0.4]))
    weights = np.array([[1.0, 0.0, 2.0], [1.0, 1.0, 1.0]])
    result = boot.weighted_auroc(weights, scores, positive)
    assert math.isnan(result[0]) and result[1] == 1.0


def _widths(figures: Figures) -> dict[str, float]:
    out = {}
    for name in ("auroc", "balanced_accuracy", "kappa", "spearman", "brier", "ece"):
        estimate = getattr(figures, name)
        assert estimate is not None and estimate.ci95 is not None
        out[name] = estimate.ci95[1] - estimate.ci95[0]
    return out


def test_grouped_bootstrap_resamples_whole_groups() -> None:
    scores, positive, grades = _random(200, seed=13)
    common: dict[str, Any] = {"threshold": 0.5, "resamples": 400}
    original = agreement_figures(
        scores.tolist(), positive.tolist(), values=grades.tolist(), **common
    )
    copies = 5
    repeated = [np.repeat(a, copies).tolist() for a in (scores, positive, grades)]
    grouped = agreement_figures(
        repeated[0],
        repeated[1],
        values=repeated[2],
        groups=[f"item-{i // copies}" for i in range(200 * copies)],
        **common,
    )
    independent = agreement_figures(repeated[0], repeated[1], values=repeated[2], **common)
    # Whole groups: the same 200 units, so the same intervals.
    for name, width in _widths(grouped).items():
        assert width == pytest.approx(_widths(original)[name], rel=0.15), name
    assert grouped.auroc.ci95 == pytest.approx(original.auroc.ci95)
    # Copies taken as independent items: intervals about 1/√5 as wide — falsely narrow.
    for name, width in _widths(independent).items():
        assert width < 0.7 * _widths(original)[name], name


def test_none_groups_are_their_own_groups() -> None:
    scores, positive, _ = _random(60, seed=2)
    plain = agreement_figures(scores.tolist(), positive.tolist(), threshold=0.5)
    unnamed = agreement_figures(
        scores.tolist(), positive.tolist(), threshold=0.5, groups=[None] * 60
    )
    assert plain == unnamed


def test_one_class_gives_none_not_an_error() -> None:
    figures = agreement_figures([0.2, 0.9, 0.5, 0.7], [True] * 4, threshold=0.5)
    for estimate in (
        figures.auroc,
        figures.balanced_accuracy,
        figures.balanced_accuracy_cv,
        figures.kappa,
    ):
        assert estimate == Estimate(None, None, BOTH_CLASSES)
    assert figures.best_threshold is None and figures.roc == ()
    # Brier and ECE need no negatives.
    assert figures.brier is not None and figures.brier.value is not None
    assert figures.resamples == 0
    _no_nan(figures.as_dict())


def test_too_few_items() -> None:
    for scores, labels in (([], []), ([0.4], [True])):
        figures = agreement_figures(scores, labels, threshold=0.5, values=[1.0] * len(scores))
        assert figures.auroc == Estimate(None, None, FEW_ITEMS)
        assert figures.spearman == Estimate(None, None, FEW_ITEMS)
        _no_nan(figures.as_dict())


def test_constant_scores_have_no_spearman() -> None:
    figures = agreement_figures(
        [0.5] * 6, LABELS, threshold=0.5, values=[1, 2, 3, 4, 5, 5], grade_scale=(1, 5)
    )
    assert figures.spearman is not None
    assert figures.spearman.value is None and figures.spearman.reason == "the scores are constant"
    # All tied: AUROC is chance, and the interval is the single value.
    assert figures.auroc.value == 0.5 and figures.auroc.ci95 == (0.5, 0.5)
    constant_labels = agreement_figures(SCORES, LABELS, threshold=0.5, values=[3.0] * 6)
    assert constant_labels.spearman is not None and constant_labels.spearman.value is None
    _no_nan(figures.as_dict())


def test_weighted_kappa_undefined_when_everything_is_one_grade() -> None:
    figures = agreement_figures(
        [0.5, 0.5, 0.5], [True, False, True], threshold=0.5, values=[3, 3, 3], grade_scale=(1, 5)
    )
    assert figures.weighted_kappa is not None and figures.weighted_kappa.value is None
    _no_nan(figures.as_dict())


def test_cross_validated_balanced_accuracy_on_separable_data() -> None:
    rng = np.random.default_rng(4)
    positive = rng.random(80) < 0.5
    scores = np.where(positive, 0.6 + 0.4 * rng.random(80), 0.4 * rng.random(80))
    figures = agreement_figures(scores.tolist(), positive.tolist(), threshold=0.5)
    assert figures.balanced_accuracy_cv.value == 1.0
    assert figures.balanced_accuracy_cv.ci95 == (1.0, 1.0)
    groups = [f"g{i // 4}" for i in range(80)]
    grouped = agreement_figures(scores.tolist(), positive.tolist(), threshold=0.5, groups=groups)
    assert grouped.balanced_accuracy_cv.value == 1.0


def test_cross_validation_needs_two_of_each_class() -> None:
    figures = agreement_figures([0.1, 0.2, 0.9], [False, False, True], threshold=0.5)
    assert figures.balanced_accuracy_cv.value is None
    assert figures.balanced_accuracy_cv.reason is not None
    assert figures.auroc.value == 1.0


def test_calibrated_bins_have_no_calibration_error() -> None:
    # 0.25 with a quarter positive, 0.75 with three quarters positive.
    scores = [0.25] * 40 + [0.75] * 40
    labels = [i < 10 for i in range(40)] + [i < 30 for i in range(40)]
    figures = agreement_figures(scores, labels, threshold=0.5)
    assert figures.ece is not None and figures.ece.value == pytest.approx(0.0, abs=1e-12)
    assert [(row["n"], row["positive_rate"]) for row in figures.reliability] == [
        (40, 0.25),
        (40, 0.75),
    ]
    not_probabilities = agreement_figures(scores, labels, threshold=0.5, probability_like=False)
    assert not_probabilities.ece is None and not_probabilities.brier is None
    assert not_probabilities.reliability == ()


def test_paired_identical_scores() -> None:
    scores, positive, grades = _random(150, seed=21)
    paired = paired_figures(
        scores.tolist(),
        scores.tolist(),
        positive.tolist(),
        threshold_a=0.5,
        threshold_b=0.5,
        values=grades.tolist(),
        grade_scale=(1, 5),
        resamples=200,
    )
    assert set(paired) == {
        "auroc",
        "balanced_accuracy",
        "balanced_accuracy_cv",
        "kappa",
        "spearman",
        "weighted_kappa",
        "brier",
        "ece",
    }
    for name, estimate in paired.items():
        assert estimate.diff == 0.0 and estimate.ci95 == (0.0, 0.0), name


def test_paired_better_metric() -> None:
    scores, positive, _ = _random(200, seed=8)
    noisy = np.clip(scores + np.random.default_rng(1).normal(0, 0.4, 200), 0, 1)
    paired = paired_figures(
        noisy.tolist(),
        scores.tolist(),
        positive.tolist(),
        threshold_a=0.5,
        threshold_b=0.5,
        probability_like_a=False,
        resamples=300,
    )
    assert "brier" not in paired  # only one side is probability-like
    auroc = paired["auroc"]
    alone = agreement_figures(noisy.tolist(), positive.tolist(), threshold=0.5)
    assert auroc.a == alone.auroc.value
    assert auroc.diff is not None and auroc.a is not None and auroc.b is not None
    assert auroc.diff == pytest.approx(auroc.b - auroc.a)
    assert auroc.ci95 is not None and 0 < auroc.ci95[0] < auroc.ci95[1]
    _no_nan({k: v.as_dict() for k, v in paired.items()})


def test_deterministic() -> None:
    scores, positive, grades = _random(100, seed=5)
    groups = [f"g{i % 30}" for i in range(100)]

    def run(seed: int) -> Figures:
        return agreement_figures(
            scores.tolist(),
            positive.tolist(),
            threshold=0.5,
            values=grades.tolist(),
            grade_scale=(1, 5),
            groups=groups,
            resamples=200,
            seed=seed,
        )

    assert run(1) == run(1)
    assert run(1).auroc.ci95 != run(2).auroc.ci95


def test_as_dict() -> None:
    figures = agreement_figures(SCORES, LABELS, threshold=0.5, values=[1, 2, 4, 5, 4, 1])
    data = figures.as_dict()
    assert set(data) == {
        "n",
        "n_positive",
        "base_rate",
        "threshold",
        "auroc",
        "balanced_accuracy",
        "best_threshold",
        "balanced_accuracy_cv",
        "kappa",
        "weighted_kappa",
        "spearman",
        "brier",
        "ece",
        "confusion",
        "roc",
        "reliability",
        "resamples",
        "resamples_drawn",
    }
    assert (data["resamples"], data["resamples_drawn"]) == (964, 1000)  # 36 had one class
    assert set(data["auroc"]) == {"value", "ci95", "reason"}
    assert data["weighted_kappa"] is None
    assert isinstance(data["roc"][0], list)
    _no_nan(data)


def test_percentile_interval_needs_enough_usable_resamples() -> None:
    replicates = np.array([0.1, 0.2, np.nan, np.nan, np.nan])
    assert boot.percentile_interval(replicates, 5, 0.95) == (None, 2)
    interval, used = boot.percentile_interval(np.linspace(0, 1, 101), 101, 0.9)
    assert used == 101 and interval == pytest.approx((0.05, 0.95))


def test_resample_weights_are_chunked_and_reproducible() -> None:
    group = np.arange(100_000) // 2
    chunks = list(boot.resample_weights(group, 50_000, 30, seed=3))
    assert sum(len(chunk) for chunk in chunks) == 30
    assert all(chunk.size <= 2 * boot.CHUNK for chunk in chunks)
    # Every row draws 50,000 groups of 2 items.
    assert all(np.all(chunk.sum(axis=1) == 100_000) for chunk in chunks)
    again = list(boot.resample_weights(group, 50_000, 30, seed=3))
    assert all(np.array_equal(a, b) for a, b in zip(chunks, again, strict=True))


def test_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        agreement_figures([0.1, 0.2], [True], threshold=0.5)
    with pytest.raises(ValueError):
        agreement_figures([0.1, math.nan], [True, False], threshold=0.5)
    with pytest.raises(ValueError):
        agreement_figures(
            [0.1, 0.2], [True, False], threshold=0.5, values=[1, 7], grade_scale=(1, 5)
        )


def test_one_group_has_values_but_no_intervals() -> None:
    figures = agreement_figures(SCORES, LABELS, threshold=0.5, groups=["answer-1"] * 6)
    assert figures.auroc.value == pytest.approx(8.5 / 9)
    assert figures.auroc.ci95 is None and figures.auroc.reason is not None
    # Folds hold whole groups: one group cannot be cross-validated.
    assert figures.balanced_accuracy_cv.value is None
    assert figures.resamples == 0
    paired = paired_figures(
        SCORES, SCORES, LABELS, threshold_a=0.5, threshold_b=0.4, groups=["answer-1"] * 6
    )
    assert paired["auroc"].diff == 0.0 and paired["auroc"].ci95 is None
