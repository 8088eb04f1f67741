"""The charts of the agreement page as inline SVG: the ROC curve and the reliability
diagram. Only numbers are drawn inside the SVG; names (systems) go in the HTML legend
beside it, where they wrap and are escaped like any other text."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from veracity.report.html_charts import FONT, PALETTE

# The square plot area and the margins around it, in SVG units (the chart scales to fit).
_SIZE, _LEFT, _TOP, _RIGHT = 200, 40, 10, 12
_MUTED, _AXIS, _GRID = "#5f6b7a", "#888", "#e3e3e3"


@dataclass(frozen=True, slots=True)
class Curve:
    """One ROC curve: its (false positive rate, true positive rate) points, the point at
    the threshold when known, and its hover text."""

    points: Sequence[tuple[float, float]]
    colour: str
    title: str
    at_threshold: tuple[float, float] | None = None
    bold: bool = False


def _n(value: float) -> str:
    return f"{value:.1f}"


def _x(value: float) -> float:
    return _LEFT + _SIZE * min(max(value, 0.0), 1.0)


def _y(value: float) -> float:
    return _TOP + _SIZE * (1 - min(max(value, 0.0), 1.0))


def _frame(label: str, height: int, x_title: str, y_title: str) -> list[str]:
    """The opening tag, grid, axes, ticks and the diagonal of a unit-square chart."""
    width = _LEFT + _SIZE + _RIGHT
    bottom = _TOP + _SIZE
    parts = [
        f'<svg class="chart agreement-chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{label}" {FONT} font-size="10">'
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        x, y = _n(_x(tick)), _n(_y(tick))
        parts.append(
            f'<line class="grid" x1="{x}" y1="{_TOP}" x2="{x}" y2="{bottom}" stroke="{_GRID}"/>'
            f'<line class="grid" x1="{_LEFT}" y1="{y}" x2="{_LEFT + _SIZE}" y2="{y}" '
            f'stroke="{_GRID}"/>'
        )
        if tick in (0.0, 0.5, 1.0):
            parts.append(
                f'<text x="{x}" y="{bottom + 13}" text-anchor="middle" fill="{_MUTED}">'
                f"{tick:g}</text>"
                f'<text x="{_LEFT - 5}" y="{_n(_y(tick) + 3)}" text-anchor="end" '
                f'fill="{_MUTED}">{tick:g}</text>'
            )
    parts.append(
        f'<rect x="{_LEFT}" y="{_TOP}" width="{_SIZE}" height="{_SIZE}" fill="none" '
        f'stroke="{_AXIS}"/>'
        f'<line class="diagonal" x1="{_LEFT}" y1="{bottom}" x2="{_LEFT + _SIZE}" y2="{_TOP}" '
        f'stroke="#999" stroke-dasharray="4 3"/>'
        f'<text x="{_LEFT + _SIZE / 2}" y="{bottom + 27}" text-anchor="middle" '
        f'fill="#333">{x_title}</text>'
        f'<text x="12" y="{_TOP + _SIZE / 2}" text-anchor="middle" fill="#333" '
        f'transform="rotate(-90 12 {_TOP + _SIZE / 2})">{y_title}</text>'
    )
    return parts


def roc_chart(curves: Sequence[Curve], label: str) -> str:
    """ROC curves (true against false positive rate) over the chance diagonal; ``label``
    and every title must already be escaped."""
    if not any(len(c.points) > 1 for c in curves):
        return ""
    parts = _frame(label, _TOP + _SIZE + 34, "false positive rate", "true positive rate")
    # Thin curves first, so the bold one (all items) is drawn on top.
    for curve in sorted(curves, key=lambda c: c.bold):
        if len(curve.points) < 2:
            continue
        path = " ".join(f"{_n(_x(fpr))},{_n(_y(tpr))}" for fpr, tpr in curve.points)
        width = 2.5 if curve.bold else 1.5
        parts.append(
            f'<polyline class="roc" points="{path}" fill="none" stroke="{curve.colour}" '
            f'stroke-width="{width}" stroke-linejoin="round"><title>{curve.title}</title>'
            "</polyline>"
        )
        if curve.at_threshold is not None:
            fpr, tpr = curve.at_threshold
            parts.append(
                f'<circle class="at-threshold" cx="{_n(_x(fpr))}" cy="{_n(_y(tpr))}" '
                f'r="{4 if curve.bold else 3}" fill="#fff" stroke="{curve.colour}" '
                f'stroke-width="2"><title>{curve.title}: at the threshold, false positive '
                f"rate {fpr:.2f}, true positive rate {tpr:.2f}</title></circle>"
            )
    parts.append("</svg>")
    return "".join(parts)


def reliability_chart(bins: Sequence[Mapping[str, float | int]], label: str) -> str:
    """The share labelled good against the mean score of each non-empty score bin, over
    the diagonal of perfect calibration; a dot's area grows with its bin's count, and the
    counts stand under the axis (staggered on two rows so that they never overlap)."""
    if not bins:
        return ""
    bottom = _TOP + _SIZE
    parts = _frame(label, bottom + 62, "mean score in bin", "share labelled good")
    largest = max(int(b["n"]) for b in bins) or 1
    dots, counts = [], []
    line = " ".join(
        f"{_n(_x(float(b['mean_score'])))},{_n(_y(float(b['positive_rate'])))}" for b in bins
    )
    parts.append(
        f'<polyline points="{line}" fill="none" stroke="{PALETTE[0]}" stroke-width="1.5"/>'
        f'<text x="{_LEFT - 5}" y="{bottom + 44}" text-anchor="end" fill="{_MUTED}">n</text>'
    )
    per_unit = round(1 / max(float(bins[0]["high"]) - float(bins[0]["low"]), 1e-9))
    for b in bins:
        n, low, high = int(b["n"]), float(b["low"]), float(b["high"])
        mean, rate = float(b["mean_score"]), float(b["positive_rate"])
        radius = 2.5 + 3.5 * (n / largest) ** 0.5
        tip = (
            f"scores {low:.1f}–{high:.1f}: {n} item(s), mean score {mean:.3f}, "
            f"labelled good {rate:.0%}"
        )
        dots.append(
            f'<circle class="bin" cx="{_n(_x(mean))}" cy="{_n(_y(rate))}" r="{_n(radius)}" '
            f'fill="{PALETTE[0]}" fill-opacity=".85" stroke="#fff"><title>{tip}</title></circle>'
        )
        centre = _n(_x((low + high) / 2))
        row = bottom + 39 + round(low * per_unit) % 2 * 11
        counts.append(
            f'<line x1="{_n(_x(low))}" y1="{bottom}" x2="{_n(_x(low))}" y2="{bottom + 4}" '
            f'stroke="{_AXIS}"/>'
            f'<text class="bin-count" x="{centre}" y="{row}" text-anchor="middle" '
            f'fill="#333">{n}<title>{tip}</title></text>'
        )
    parts += dots + counts
    parts.append("</svg>")
    return "".join(parts)
