"""CI gates: ``--threshold metric=value`` against a run's overall means."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from veracity.report.summary import OVERALL


@dataclass(frozen=True, slots=True)
class ThresholdCheck:
    metric: str
    threshold: float
    mean: float | None

    @property
    def met(self) -> bool:
        # Nothing scored is not a pass: a gate must not open on missing evidence.
        return self.mean is not None and self.mean >= self.threshold

    def __str__(self) -> str:
        got = "no scored result" if self.mean is None else f"mean {self.mean:.4f}"
        verdict = "met" if self.met else "NOT met"
        return f"{self.metric} ≥ {self.threshold:g}: {verdict} ({got})"


def parse_thresholds(specs: Iterable[str]) -> dict[str, float]:
    thresholds: dict[str, float] = {}
    for spec in specs:
        metric, sep, value = spec.partition("=")
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        if not sep or not metric.strip() or not 0.0 <= number <= 1.0:
            raise ValueError(f"bad threshold {spec!r}: expected metric=value with value in [0, 1]")
        thresholds[metric.strip()] = number
    return thresholds


def check_thresholds(
    summary: Mapping[str, Any], thresholds: Mapping[str, float]
) -> list[ThresholdCheck]:
    metrics = summary["metrics"]
    return [
        ThresholdCheck(
            metric, threshold, metrics[metric][OVERALL]["mean"] if metric in metrics else None
        )
        for metric, threshold in thresholds.items()
    ]


def thresholds_from_settings(settings: Mapping[str, Any] | None) -> dict[str, float]:
    """The pass thresholds a run's ``settings`` carry under ``"thresholds"`` (metric →
    value in [0, 1]); anything else there is ignored, so a summary never fails on it."""
    given = (settings or {}).get("thresholds")
    if not isinstance(given, Mapping):
        return {}
    return {
        str(metric): float(value)
        for metric, value in given.items()
        if isinstance(value, int | float)
        and not isinstance(value, bool)
        and 0.0 <= float(value) <= 1.0
    }
