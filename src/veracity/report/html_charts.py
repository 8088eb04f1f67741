"""Charts of ``report.html`` as inline SVG, drawn here so the page needs no script for them.

Every label is user text (metric, system and question-type names) and is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape

PALETTE = (
    "#4e79a7",
    "#f28e2b",
    "#59a14f",
    "#e15759",
    "#76b7b2",
    "#edc948",
    "#b07aa1",
    "#9c755f",
    "#ff9da7",
    "#bab0ac",
)
FONT = 'font-family="system-ui, sans-serif"'


@dataclass(frozen=True, slots=True)
class Bar:
    """A mean with its 95 % interval when known."""

    mean: float
    low: float | None = None
    high: float | None = None
    n: int | None = None


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _num(x: float) -> str:
    return f"{x:.1f}"


def histogram(metric: str, bins: Sequence[int], unscored: int = 0) -> str:
    """Counts of scores in equal-width bins over [0, 1]. The chart scales to its box; its
    view box is no wider than the narrowest box it gets (a figure of the grid, 262 px and
    up, on a 320 px phone too), so its text never shrinks below the 10 px it is drawn at."""
    width, height, left, right, top, bottom = 260, 150, 30, 8, 10, 34
    plot_w, plot_h = width - left - right, height - top - bottom
    peak = max(max(bins, default=0), 1)
    step = plot_w / max(len(bins), 1)
    parts = [
        f'<svg class="chart histogram" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{_e(f"score distribution of {metric}")}" {FONT} font-size="10">',
        f'<line class="axis" x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" '
        f'y2="{top + plot_h}" stroke="#888"/>',
        f'<text x="{left - 4}" y="{top + 4}" text-anchor="end" fill="#666">{peak}</text>',
        f'<text x="{left - 4}" y="{top + plot_h}" text-anchor="end" fill="#666">0</text>',
    ]
    for i, count in enumerate(bins):
        h = plot_h * count / peak
        x = left + i * step
        lo, hi = i / len(bins), (i + 1) / len(bins)
        label = f"{metric}: {count} result(s) scored {lo:.1f}–{hi:.1f}"
        parts.append(
            f'<rect class="bar" x="{_num(x + 1)}" y="{_num(top + plot_h - h)}" '
            f'width="{_num(step - 2)}" height="{_num(h)}" fill="{PALETTE[0]}">'
            f"<title>{_e(label)}</title></rect>"
        )
    for tick, anchor in ((0.0, "start"), (0.5, "middle"), (1.0, "end")):
        x = left + plot_w * tick
        parts.append(
            f'<text x="{_num(x)}" y="{top + plot_h + 13}" text-anchor="{anchor}" '
            f'fill="#666">{tick:g}</text>'
        )
    caption = "score" + (f" · {unscored} unscored" if unscored else "")
    parts.append(
        f'<text x="{left + plot_w / 2}" y="{height - 4}" text-anchor="middle" '
        f'fill="#444">{_e(_short(caption, 40))}</text></svg>'
    )
    return "".join(parts)


# Grouped bars, in CSS pixels (no view box: nothing scales, text stays at its size).
_LABEL_H, _BAR_H, _BAR_GAP, _GROUP_GAP, _AXIS_H = 18, 14, 3, 10, 20
# Horizontal positions are percentages of the chart's width: the bars over [0, 1] take
# the first 82 %, the means stand in the rest (room for "0.000" at 12 px from 210 px up).
_PLOT_LEFT, _PLOT_SPAN = 0.5, 82.0
_VALUE_AT = "84%"
_NAME_CHARS = 34  # a group's name longer than this is cut (whole on hover): it fits 300 px


def _at(value: float) -> str:
    return f"{_PLOT_LEFT + _PLOT_SPAN * min(max(value, 0.0), 1.0):.2f}%"


def grouped_bars(
    label: str,
    groups: Sequence[str],
    series: Sequence[str],
    values: Mapping[tuple[str, str], Bar],
) -> str:
    """Mean score per group (a block of rows, its name above) and series (a coloured
    bar each, the colours named in the legend above the chart), whiskers for the 95 % CI.

    Bars run left to right and every position across is a percentage, so the chart
    takes its box's width at any screen size without scaling its text: names, means and
    ticks keep their 12 px on a phone, and a name is cut to what fits, never clipped."""
    if not groups or not series:
        return ""
    row = _BAR_H + _BAR_GAP
    group_h = _LABEL_H + row * len(series) + _GROUP_GAP
    plot_h = group_h * len(groups)
    height = plot_h + _AXIS_H
    legend = "".join(
        f'<li><span class="swatch" style="background:{PALETTE[i % len(PALETTE)]}"></span>'
        f"{_e(name)}</li>"
        for i, name in enumerate(series)
    )
    parts = [
        f'<div class="bars-chart"><ul class="legend">{legend}</ul>'
        f'<svg class="chart bars" width="100%" height="{height}" role="img" '
        f'aria-label="{_e(label)}" {FONT} font-size="12">'
    ]
    for tick, anchor in ((0.0, "start"), (0.25, "middle"), (0.5, "middle"),
                         (0.75, "middle"), (1.0, "end")):  # fmt: skip
        parts.append(
            f'<line class="grid" x1="{_at(tick)}" y1="0" x2="{_at(tick)}" y2="{plot_h}" '
            f'stroke="{"#bbb" if tick == 0 else "#e3e3e3"}"/>'
            f'<text class="tick" x="{_at(tick)}" y="{height - 5}" text-anchor="{anchor}" '
            f'fill="#666">{tick:g}</text>'
        )
    for g, group in enumerate(groups):
        top = g * group_h
        parts.append(
            f'<text class="group" x="0" y="{top + 13}" fill="#333" font-weight="600">'
            f"{_e(_short(group, _NAME_CHARS))}<title>{_e(group)}</title></text>"
        )
        for s, name in enumerate(series):
            bar = values.get((group, name))
            if bar is not None:
                parts.append(_bar(top + _LABEL_H + s * row, bar, group, name, s))
    parts.append("</svg></div>")
    return "".join(parts)


def _bar(y: int, bar: Bar, group: str, name: str, i: int) -> str:
    tip = f"{group} · {name}: mean {bar.mean:.3f}"
    if bar.low is not None and bar.high is not None:
        tip += f" (95 % CI {bar.low:.3f}–{bar.high:.3f})"
    if bar.n is not None:
        tip += f", n={bar.n}"
    width = _PLOT_SPAN * min(max(bar.mean, 0.0), 1.0)
    out = (
        f'<rect class="bar" x="{_at(0)}" y="{y}" width="{width:.2f}%" height="{_BAR_H}" '
        f'fill="{PALETTE[i % len(PALETTE)]}"><title>{_e(tip)}</title></rect>'
        f'<text class="mean" x="{_VALUE_AT}" y="{y + _BAR_H - 2}" fill="#333">'
        f"{bar.mean:.3f}<title>{_e(tip)}</title></text>"
    )
    if bar.low is not None and bar.high is not None:
        mid, lo, hi = y + _BAR_H / 2, _at(bar.low), _at(bar.high)
        out += (
            f'<g class="ci" stroke="#222" stroke-width="1.2">'
            f'<line x1="{lo}" y1="{mid}" x2="{hi}" y2="{mid}"/>'
            f'<line x1="{lo}" y1="{mid - 4}" x2="{lo}" y2="{mid + 4}"/>'
            f'<line x1="{hi}" y1="{mid - 4}" x2="{hi}" y2="{mid + 4}"/></g>'
        )
    return out


@dataclass(frozen=True, slots=True)
class Difference:
    """One metric's mean paired difference B − A with its 95 % interval."""

    metric: str
    diff: float | None
    low: float | None = None
    high: float | None = None
    note: str = ""  # the hover text: n, p-value


def _nice(span: float) -> float:
    """The smallest of a few round half-widths that holds ``span``."""
    return next((r for r in (0.05, 0.1, 0.2, 0.25, 0.5) if span <= r), 1.0)


def differences_chart(rows: Sequence[Difference]) -> str:
    """A forest plot of the paired differences: per metric a dot at B − A and a whisker
    for its 95 % CI, around a zero line. Horizontal positions are percentages, so the
    chart takes the page's width without scaling its text (it stays readable on a phone)."""
    if not rows:
        return ""
    span = max((abs(v) for r in rows for v in (r.diff, r.low, r.high) if v is not None),
               default=0.0)  # fmt: skip
    half = _nice(span)
    left, right, row_h, top = 4.0, 96.0, 40, 8

    def x(value: float) -> str:
        return f"{left + (right - left) * (value + half) / (2 * half):.2f}%"

    height = top + row_h * len(rows) + 22
    parts = [
        f'<svg class="chart differences" width="100%" height="{height}" role="img" '
        f'aria-label="paired differences B − A per metric, with 95 % confidence intervals" '
        f'{FONT} font-size="12">'
    ]
    ticks = ((-half, "start"), (-half / 2, "middle"), (0.0, "middle"), (half / 2, "middle"),
             (half, "end"))  # fmt: skip
    for tick, anchor in ticks:  # the outermost inside the chart, whatever its width
        parts.append(
            f'<line class="{"zero" if tick == 0 else "grid"}" x1="{x(tick)}" y1="{top}" '
            f'x2="{x(tick)}" y2="{height - 18}" stroke="{"#555" if tick == 0 else "#e3e3e3"}"/>'
            f'<text x="{x(tick)}" y="{height - 4}" text-anchor="{anchor}" fill="#666">'
            f"{f'{tick:+g}' if tick else '0'}</text>"
        )
    for i, row in enumerate(rows):
        y0 = top + i * row_h
        parts.append(
            f'<g class="difference"><title>{_e(row.note)}</title>'
            f'<text x="{left}%" y="{y0 + 13}" fill="#333">{_e(_short(row.metric, 40))}</text>'
        )
        cy = y0 + 27
        colour = "#888"
        if row.low is not None and row.high is not None:
            colour = "#2e7d32" if row.low > 0 else "#c62828" if row.high < 0 else "#666"
            parts.append(
                f'<line class="ci" x1="{x(row.low)}" y1="{cy}" x2="{x(row.high)}" y2="{cy}" '
                f'stroke="{colour}" stroke-width="2"/>'
            )
        if row.diff is not None:
            parts.append(
                f'<circle class="diff" cx="{x(row.diff)}" cy="{cy}" r="4.5" fill="{colour}"/>'
            )
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)
