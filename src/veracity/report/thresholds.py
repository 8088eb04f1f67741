"""CI gates: ``--threshold metric=value`` against a run's overall means (or, as
``metric:calibrated=value``, against the mean calibrated probability of a run with
``--calibration``), and ``--max-error-rate`` against the share of results judge errors
left unscored."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from veracity.report.keys import OVERALL

# The share of results judge errors may leave unscored before a run counts as failed.
DEFAULT_MAX_ERROR_RATE = 0.1


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


CALIBRATED = ":calibrated"


def gated_metric(gate: str) -> str:
    """The metric a gate is on: ``faithfulness`` for ``faithfulness:calibrated`` too."""
    return gate.removesuffix(CALIBRATED)


def _gated_mean(metrics: Mapping[str, Any], gate: str) -> float | None:
    overall = (metrics.get(gated_metric(gate)) or {}).get(OVERALL) or {}
    if gate.endswith(CALIBRATED):
        overall = overall.get("calibrated") or {}
    mean = overall.get("mean")
    return None if mean is None else float(mean)


def check_thresholds(
    summary: Mapping[str, Any], thresholds: Mapping[str, float]
) -> list[ThresholdCheck]:
    metrics = summary["metrics"]
    return [
        ThresholdCheck(gate, threshold, _gated_mean(metrics, gate))
        for gate, threshold in thresholds.items()
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


def checked_error_rate(value: float, name: str = "max_error_rate") -> float:
    """``value`` if it is a share in [0, 1]; ``ValueError`` naming ``name`` otherwise."""
    number = float(value)
    if not 0.0 <= number <= 1.0:  # NaN fails this too
        raise ValueError(f"{name} must be a share between 0 and 1, not {value!r}")
    return number


@dataclass(frozen=True, slots=True)
class ErrorRateCheck:
    """How many of a run's results judge errors left unscored, against the allowed share."""

    results: int
    scored: int
    judge_errors: int
    max_rate: float
    # Status → count over every metric, for saying why nothing was scored.
    statuses: tuple[tuple[str, int], ...] = ()

    @property
    def rate(self) -> float:
        return self.judge_errors / self.results if self.results else 0.0

    @property
    def met(self) -> bool:
        # A run that scored nothing fails whatever the allowed share: it measured nothing.
        return self.scored > 0 and self.rate <= self.max_rate

    def __str__(self) -> str:
        if self.scored == 0:
            counts = ", ".join(f"{status} {n:,}" for status, n in self.statuses if n)
            return f"nothing was scored: 0 of {self.results:,} results" + (
                f" ({counts})" if counts else ""
            )
        verdict = "more than" if self.rate > self.max_rate else "within"
        return (
            f"judge errors left {self.judge_errors:,} of {self.results:,} results unscored "
            f"({self.rate:.1%}), {verdict} the allowed share ({self.max_rate:g})"
        )


def check_error_rate(summary: Mapping[str, Any], max_rate: float) -> ErrorRateCheck:
    """The judge errors of a run's summary (every metric, every iteration) against
    ``max_rate``, the share of results they may leave unscored."""
    from veracity.types import Status

    overall = [groups[OVERALL] for groups in summary["metrics"].values()]
    statuses = {
        status.value: sum(stats["counts_by_status"].get(status.value, 0) for stats in overall)
        for status in Status
    }
    return ErrorRateCheck(
        results=sum(stats["n"] for stats in overall),
        scored=sum(stats["n_scored"] for stats in overall),
        judge_errors=statuses[Status.JUDGE_ERROR.value],
        max_rate=checked_error_rate(max_rate),
        statuses=tuple(statuses.items()),
    )
