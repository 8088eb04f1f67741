"""The statistics against values computed by hand."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from veracity.report.statistics import (
    bootstrap_ci,
    describe,
    paired_comparison,
    pass_rate,
    sign_flip_test,
)

# Six paired differences B − A: magnitudes 1, 1, 2, 3, 4, 5 (×0.1), one of the 1s negative.
DIFFS = [0.1, 0.2, 0.3, 0.4, 0.5, -0.1]


def test_describe_by_hand() -> None:
    stats = describe([0.2, 0.4, 0.9])
    assert stats["mean"] == pytest.approx(0.5)
    assert stats["median"] == pytest.approx(0.4)
    assert (stats["min"], stats["max"]) == (0.2, 0.9)
    # deviations −0.3, −0.1, 0.4: squares 0.26 over n − 1 = 2
    assert stats["std"] == pytest.approx(math.sqrt(0.13))


def test_describe_of_nothing_and_of_one_value_is_none_not_nan() -> None:
    assert describe([]) == dict.fromkeys(("mean", "median", "min", "max", "std"))
    one = describe([0.7])
    assert one["mean"] == 0.7 and one["std"] is None


def test_pass_rate_counts_a_score_at_the_threshold_as_a_pass() -> None:
    assert pass_rate([0.2, 0.5, 0.9, 0.49], 0.5) == 0.5
    assert pass_rate([0.2], 0.0) == 1.0
    assert pass_rate([], 0.5) is None


def test_bootstrap_ci_needs_two_values() -> None:
    assert bootstrap_ci([]) is None
    assert bootstrap_ci([0.4]) is None
    # two clusters are needed too: one item judged three times is one unit of evidence
    assert bootstrap_ci([0.1, 0.2, 0.3], clusters=[7, 7, 7]) is None


def test_bootstrap_ci_of_two_values_spans_them() -> None:
    # Resample means of {0, 1}: 0, 0.5, 1 with probabilities 1/4, 1/2, 1/4, so the 2.5th
    # and 97.5th percentiles of 2,000 resamples are exactly 0 and 1.
    assert bootstrap_ci([0.0, 1.0]) == (0.0, 1.0)
    assert bootstrap_ci([0.3] * 5) == (0.3, 0.3)


def test_bootstrap_ci_matches_the_enumerated_bootstrap_distribution() -> None:
    values = [0.0, 0.25, 0.5, 1.0]
    # The ideal bootstrap distribution: all 4**4 = 256 equally likely resamples. Their
    # means' 2.5th percentile is 0.125 (cumulative 0.0586 at 0.125, 0.0195 below) and the
    # 97.5th is 0.8125 (cumulative 0.9648 below, 0.9805 at 0.8125).
    means = [sum(pick) / 4 for pick in itertools.product(values, repeat=4)]
    assert tuple(np.percentile(means, [2.5, 97.5])) == (0.125, 0.8125)
    # The percentile bootstrap (2,000 resamples, fixed seed) gives the same interval.
    assert bootstrap_ci(values) == (0.125, 0.8125)


def test_bootstrap_ci_is_deterministic_and_contains_the_mean() -> None:
    rng = np.random.default_rng(3)
    values = list(rng.random(200))
    first, second = bootstrap_ci(values), bootstrap_ci(values)
    assert first == second and first is not None
    mean = float(np.mean(values))
    assert first[0] < mean < first[1]
    # about 2 standard errors each side
    half = 1.96 * float(np.std(values, ddof=1)) / math.sqrt(200)
    assert first[1] - first[0] == pytest.approx(2 * half, rel=0.15)


def test_bootstrap_ci_resamples_whole_clusters() -> None:
    # Two items, two scores each: item means 0.125 and 0.75. Resampling the items gives
    # the means 0.125, 0.4375 and 0.75 (1/4, 1/2, 1/4): the interval is [0.125, 0.75].
    assert bootstrap_ci([0.0, 0.25, 0.5, 1.0], clusters=[0, 0, 1, 1]) == (0.125, 0.75)


def test_exact_sign_flip_p_value_by_hand() -> None:
    # The observed total is 1.4 of a possible 1.6. A sign assignment gives
    # 1.6 − 2·(the magnitudes made negative); |total| ≥ 1.4 when those sum to ≤ 0.1 (none,
    # or either 0.1: 3 ways) or ≥ 1.5 (the mirror images: 3 ways). 6 of 2**6 = 64.
    test = sign_flip_test(DIFFS)
    assert test.method == "exact" and test.permutations == 64 and test.units == 6
    assert test.p_value == pytest.approx(6 / 64)


def test_sign_flip_edge_cases() -> None:
    assert sign_flip_test([]).p_value is None
    assert sign_flip_test([0.0, 0.0, 0.0]).p_value == 1.0
    # one difference: both signs are as extreme as the observed one
    assert sign_flip_test([0.4]).p_value == 1.0
    # balanced differences total 0, so every assignment is as extreme: p = 1
    balanced = sign_flip_test([0.3] * 17 + [-0.3] * 17)
    assert balanced.method == "monte_carlo" and balanced.p_value == 1.0


def test_monte_carlo_p_value_is_never_zero_and_close_to_exact() -> None:
    # 17 equal positive differences: exact p = 2 / 2**17; the estimate (1 + hits) / 10001
    strong = sign_flip_test([0.3] * 17)
    assert strong.method == "monte_carlo" and strong.permutations == 10_000
    assert strong.p_value is not None and 0 < strong.p_value <= 3 / 10_001
    rng = np.random.default_rng(5)
    diffs = list(rng.normal(0.05, 0.2, size=16))
    exact = sign_flip_test(diffs)
    sampled = sign_flip_test(diffs, exact_limit=0)
    assert exact.method == "exact" and sampled.method == "monte_carlo"
    assert exact.p_value is not None and sampled.p_value is not None
    assert abs(exact.p_value - sampled.p_value) < 0.02
    assert sign_flip_test(diffs, exact_limit=0) == sampled  # deterministic


def test_sign_flip_flips_whole_clusters() -> None:
    # clusters total +0.2 and −0.2: observed 0, every assignment is as extreme
    assert sign_flip_test([0.1, 0.1, -0.2], clusters=[0, 0, 1]).p_value == 1.0
    # two units of +0.2: the total 0.4 is reached by 2 of 4 assignments; as three
    # separate values it is reached only with all signs alike, 2 of 8
    assert sign_flip_test([0.1, 0.1, 0.2], clusters=[0, 0, 1]).p_value == pytest.approx(2 / 4)
    assert sign_flip_test([0.1, 0.1, 0.2]).p_value == pytest.approx(2 / 8)


def test_paired_comparison_on_a_fixed_example() -> None:
    a = [0.5] * 6
    b = [x + d for x, d in zip(a, DIFFS, strict=True)]
    result = paired_comparison(a, b)
    assert result.n == 6
    assert result.mean_a == pytest.approx(0.5)
    assert result.mean_b == pytest.approx(0.5 + 1.4 / 6)
    assert result.mean_diff == pytest.approx(1.4 / 6)
    assert result.test.p_value == pytest.approx(0.09375) and result.test.method == "exact"
    assert result.ci95 is not None
    low, high = result.ci95
    assert -0.1 <= low < 1.4 / 6 < high <= 0.5
    as_dict = result.as_dict()
    assert as_dict["p_method"] == "exact" and as_dict["ci95"] == [low, high]
    assert as_dict["n_paired"] == 6 and as_dict["permutations"] == 64


def test_paired_comparison_of_nothing_and_of_mismatched_lengths() -> None:
    empty = paired_comparison([], [])
    assert empty.n == 0 and empty.mean_diff is None and empty.ci95 is None
    assert empty.test.p_value is None
    with pytest.raises(ValueError, match="same length"):
        paired_comparison([0.1], [0.1, 0.2])
