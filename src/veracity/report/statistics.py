"""Statistics of scores: descriptive values, bootstrap intervals, paired tests.

Pure functions over plain sequences of floats. Nothing here returns NaN: what cannot be
computed (a mean of nothing, a spread of one value) is ``None``. Every random procedure
uses a fixed seed, so the same scores always give the same interval and p-value.

``clusters`` (optional, one integer per value) groups values that are not independent —
the scores one item got in several iterations: the bootstrap then resamples whole
clusters and the permutation test flips the sign of whole clusters. Without clusters
every value is its own cluster, which is the ordinary bootstrap and sign-flip test.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

SEED = 20_240_917
RESAMPLES = 2_000
PERMUTATIONS = 10_000
# Up to this many clusters the permutation test enumerates every sign assignment.
EXACT_LIMIT = 16
CONFIDENCE = 0.95
# Random draws per chunk, so memory stays bounded however many values there are.
_CHUNK = 4_000_000

Floats = npt.NDArray[np.float64]
PMethod = Literal["exact", "monte_carlo"]


def describe(scores: Sequence[float]) -> dict[str, float | None]:
    """Mean, median, min, max and the sample standard deviation (``None`` for n < 2)."""
    return {
        "mean": statistics.fmean(scores) if scores else None,
        "median": float(statistics.median(scores)) if scores else None,
        "min": float(min(scores)) if scores else None,
        "max": float(max(scores)) if scores else None,
        "std": statistics.stdev(scores) if len(scores) > 1 else None,
    }


def pass_rate(scores: Sequence[float], threshold: float) -> float | None:
    """The share of ``scores`` at or above ``threshold`` (``None`` when there is none)."""
    if not scores:
        return None
    return sum(score >= threshold for score in scores) / len(scores)


def _cluster_totals(
    values: Sequence[float], clusters: Sequence[int] | None
) -> tuple[Floats, Floats]:
    """Per cluster: the sum of its values and how many values it has."""
    array = np.asarray(values, dtype=np.float64)
    if clusters is None:
        return array, np.ones_like(array)
    if len(clusters) != len(values):
        raise ValueError("clusters must give one cluster per value")
    _, index = np.unique(np.asarray(clusters, dtype=np.int64), return_inverse=True)
    sums = np.bincount(index, weights=array).astype(np.float64)
    counts = np.bincount(index).astype(np.float64)
    return sums, counts


def bootstrap_ci(
    values: Sequence[float],
    clusters: Sequence[int] | None = None,
    *,
    confidence: float = CONFIDENCE,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> tuple[float, float] | None:
    """The percentile-bootstrap confidence interval of the mean of ``values``.

    ``None`` with fewer than two values (or two clusters). Deterministic: a fixed seed.
    """
    sums, counts = _cluster_totals(values, clusters)
    k = len(sums)
    if k < 2:
        return None
    rng = np.random.default_rng(seed)
    means = np.empty(resamples, dtype=np.float64)
    step = max(1, _CHUNK // k)
    singletons = bool(np.all(counts == 1))
    for start in range(0, resamples, step):
        stop = min(resamples, start + step)
        picks = rng.integers(0, k, size=(stop - start, k), dtype=np.int32)
        totals = sums[picks].sum(axis=1)
        means[start:stop] = totals / k if singletons else totals / counts[picks].sum(axis=1)
    tail = 100 * (1 - confidence) / 2
    low, high = np.percentile(means, [tail, 100 - tail])
    # A percentile of means lies within the values; clamp away float noise.
    lowest, highest = float(np.min(values)), float(np.max(values))
    return max(lowest, float(low)), min(highest, float(high))


@dataclass(frozen=True, slots=True)
class PermutationTest:
    """A two-sided paired sign-flip permutation test of "the mean difference is 0"."""

    p_value: float | None
    method: PMethod | None
    # The number of sign assignments evaluated (2**units when exact).
    permutations: int
    units: int


def sign_flip_test(
    differences: Sequence[float],
    clusters: Sequence[int] | None = None,
    *,
    exact_limit: int = EXACT_LIMIT,
    permutations: int = PERMUTATIONS,
    seed: int = SEED,
) -> PermutationTest:
    """The p-value of the observed total difference under random sign flips.

    Exact enumeration of all ``2**units`` sign assignments when there are at most
    ``exact_limit`` units (clusters), else ``permutations`` random assignments with the
    (1 + hits) / (1 + permutations) estimate, which is never 0.
    """
    sums, _ = _cluster_totals(differences, clusters)
    units = len(sums)
    if units == 0:
        return PermutationTest(None, None, 0, 0)
    observed = abs(float(sums.sum()))
    # Sums equal up to float rounding count as "at least as extreme".
    tolerance = 1e-9 * max(1.0, float(np.abs(sums).sum()))
    if units <= exact_limit:
        codes = np.arange(1 << units, dtype=np.int64)[:, None]
        bits = (codes >> np.arange(units, dtype=np.int64)) & 1
        totals = ((1 - 2 * bits) * sums).sum(axis=1)
        hits = int(np.count_nonzero(np.abs(totals) >= observed - tolerance))
        return PermutationTest(hits / (1 << units), "exact", 1 << units, units)
    rng = np.random.default_rng(seed)
    hits = 0
    step = max(1, _CHUNK // units)
    for start in range(0, permutations, step):
        size = min(permutations, start + step) - start
        # Random bits from random bytes (fast); Σ sᵢ·dᵢ with sᵢ = 1 − 2·bitᵢ.
        raw = np.frombuffer(rng.bytes((size * units + 7) // 8), dtype=np.uint8)
        flips = np.unpackbits(raw, count=size * units).reshape(size, units)
        totals = float(sums.sum()) - 2 * (flips.astype(np.float64) @ sums)
        hits += int(np.count_nonzero(np.abs(totals) >= observed - tolerance))
    return PermutationTest((1 + hits) / (1 + permutations), "monte_carlo", permutations, units)


@dataclass(frozen=True, slots=True)
class PairedComparison:
    """B against A on the same items: the mean difference B − A, its CI and p-value."""

    n: int
    units: int
    mean_a: float | None
    mean_b: float | None
    mean_diff: float | None
    ci95: tuple[float, float] | None
    test: PermutationTest

    def as_dict(self) -> dict[str, Any]:
        return {
            "n_paired": self.n,
            "n_units": self.units,
            "mean_a": self.mean_a,
            "mean_b": self.mean_b,
            "mean_diff": self.mean_diff,
            "ci95": None if self.ci95 is None else list(self.ci95),
            "p_value": self.test.p_value,
            "p_method": self.test.method,
            "permutations": self.test.permutations,
        }


def paired_comparison(
    a: Sequence[float], b: Sequence[float], clusters: Sequence[int] | None = None
) -> PairedComparison:
    """Compare aligned scores ``a`` and ``b`` (``a[i]`` and ``b[i]`` on the same item):
    the paired-bootstrap CI of the mean difference B − A and the sign-flip p-value."""
    if len(a) != len(b):
        raise ValueError("paired scores must have the same length")
    differences = [y - x for x, y in zip(a, b, strict=True)]
    test = sign_flip_test(differences, clusters)
    return PairedComparison(
        n=len(differences),
        units=test.units,
        mean_a=statistics.fmean(a) if a else None,
        mean_b=statistics.fmean(b) if b else None,
        mean_diff=statistics.fmean(differences) if differences else None,
        ci95=bootstrap_ci(differences, clusters),
        test=test,
    )
