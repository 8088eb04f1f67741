"""A gate on agreement (``veracity agree --min auroc=0.8``): CI fails when a judge stops
agreeing with the team's labels.

A gate names a figure and a minimum, and optionally the metric it holds for
(``faithfulness:auroc=0.8``; otherwise every metric of the report, calibrated ones
included). It is met where the lower bound of the figure's 95 % interval reaches the
minimum — overall and in each system — so a figure that happens to be high on a few items
does not pass. A figure that cannot be computed (one class of labels only, too few items
to resample), or whose interval has zero width on fewer than 30 items (1.00–1.00: every
resample of a few perfectly ranked items ranks them perfectly), fails with its reason: a
gate never passes by having nothing to look at.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from veracity.agreement.model import (
    FIGURE_NAMES,
    SMALL_SAMPLE,
    Agreement,
    Gate,
    GateCheck,
    GroupAgreement,
)

#: The figures a gate may name (higher is better for each), with the range of each.
GATED: Final[dict[str, tuple[float, float]]] = {
    "auroc": (0.0, 1.0),
    "balanced_accuracy": (0.0, 1.0),
    "balanced_accuracy_cv": (0.0, 1.0),
    "kappa": (-1.0, 1.0),
    "weighted_kappa": (-1.0, 1.0),
    "spearman": (-1.0, 1.0),
}
_ALIASES: Final = {"κ": "kappa", "weighted_κ": "weighted_kappa", "cohen_kappa": "kappa"}
_FORM = "FIGURE=VALUE or METRIC:FIGURE=VALUE, e.g. auroc=0.8"


def _figure(name: str, spec: str) -> str:
    figure = _ALIASES.get(name, name)
    if figure not in GATED:
        raise ValueError(
            f"--min {spec!r}: {name!r} is not a figure a gate can name (allowed: "
            f"{', '.join(GATED)}; κ for kappa)"
        )
    return figure


def parse_gate(spec: str) -> Gate:
    """One ``--min`` spec; ``ValueError`` naming the spec and the allowed figures."""
    name, equals, text = spec.partition("=")
    name, text = name.strip().lower(), text.strip()
    if not equals or not name or not text:
        raise ValueError(f"--min {spec!r}: expected {_FORM} (figures: {', '.join(GATED)})")
    metric, colon, figure_name = name.rpartition(":")
    figure = _figure(figure_name if colon else name, spec)
    try:
        minimum = float(text)
    except ValueError:
        raise ValueError(f"--min {spec!r}: {text!r} is not a number") from None
    low, high = GATED[figure]
    if not (math.isfinite(minimum) and low <= minimum <= high):
        raise ValueError(
            f"--min {spec!r}: {FIGURE_NAMES[figure]} runs from {low:g} to {high:g}, "
            f"so a minimum of {text} means nothing"
        )
    return Gate(figure, minimum, metric or None)


def parse_gates(specs: Sequence[str]) -> tuple[Gate, ...]:
    """Every ``--min``; one figure given twice for one metric is an error."""
    gates: dict[tuple[str | None, str], Gate] = {}
    for spec in specs:
        gate = parse_gate(spec)
        key = (gate.metric, gate.figure)
        if key in gates:
            raise ValueError(f"--min {spec!r}: {gates[key]} is already a gate")
        gates[key] = gate
    return tuple(gates.values())


def check_gates(report: Agreement, gates: Sequence[Gate]) -> tuple[GateCheck, ...]:
    """Each gate against each run, metric it holds for and group of items (all, then each
    system). A gate naming a metric the report does not have raises ``ValueError``."""
    measured = {m.metric for metrics in report.metrics for m in metrics}
    for gate in gates:
        if gate.metric is not None and gate.metric not in measured:
            raise ValueError(
                f"--min: no metric {gate.metric!r} to gate (the report has "
                f"{', '.join(sorted(measured)) or 'none'})"
            )
    return tuple(
        _check(gate, run, metric.metric, group)
        for run, metrics in zip(report.runs, report.metrics, strict=True)
        for metric in metrics
        for gate in gates
        if gate.metric in (None, metric.metric)
        for group in (metric.overall, *metric.by_system)
    )


def _check(gate: Gate, run: str, metric: str, group: GroupAgreement) -> GateCheck:
    estimate = group.figures.estimate(gate.figure)
    if estimate is None:
        only = f"{FIGURE_NAMES[gate.figure]} is computed for grades only"
        return GateCheck(gate, run, metric, group.system, group.figures.n, None, None, only)
    n, interval = group.figures.n, estimate.ci95
    if interval is not None and interval[0] == interval[1] and n < SMALL_SAMPLE:
        # Every resample of a few perfectly ranked items ranks them perfectly too: the
        # interval 1.00–1.00 bounds nothing, and a gate must not pass on it.
        flat = (
            f"an interval of zero width ({interval[0]:.2f}–{interval[1]:.2f}) on {n} item(s), "
            f"fewer than {SMALL_SAMPLE}: every resample gave the same figure, which bounds "
            "nothing"
        )
        return GateCheck(gate, run, metric, group.system, n, estimate.value, None, flat)
    low = None if interval is None else interval[0]
    why = None if low is not None else (estimate.reason or "no interval")
    return GateCheck(gate, run, metric, group.system, n, estimate.value, low, why)
