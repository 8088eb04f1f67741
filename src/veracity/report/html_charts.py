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
    """Counts of scores in equal-width bins over [0, 1]."""
    width, height, left, right, top, bottom = 300, 170, 34, 8, 10, 34
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
    for tick in (0.0, 0.5, 1.0):
        x = left + plot_w * tick
        parts.append(
            f'<text x="{_num(x)}" y="{top + plot_h + 13}" text-anchor="middle" '
            f'fill="#666">{tick:g}</text>'
        )
    caption = "score" + (f" · {unscored} unscored" if unscored else "")
    parts.append(
        f'<text x="{left + plot_w / 2}" y="{height - 4}" text-anchor="middle" '
        f'fill="#444">{_e(caption)}</text></svg>'
    )
    return "".join(parts)


def grouped_bars(
    label: str,
    groups: Sequence[str],
    series: Sequence[str],
    values: Mapping[tuple[str, str], Bar],
) -> str:
    """Mean score per group (x axis) and series (coloured bars), whiskers for the 95 % CI."""
    if not groups or not series:
        return ""
    bar_w, gap, legend_w = 18, 26, 150
    group_w = len(series) * bar_w + gap
    left, plot_h = 110, 170
    width = max(left + group_w * len(groups) + 10, 320)
    per_row = max(1, (width - 10) // legend_w)  # the legend stays inside the chart's width
    top = 16 + 14 * -(-len(series) // per_row)
    height = top + plot_h + 80
    parts = [
        f'<svg class="chart bars" viewBox="0 0 {width} {height}" width="{width}" '
        f'role="img" aria-label="{_e(label)}" {FONT} font-size="10">'
    ]
    for i, name in enumerate(series):
        x, y = 10 + (i % per_row) * legend_w, 12 + (i // per_row) * 14
        parts.append(
            f'<rect class="legend" x="{x}" y="{y - 8}" width="10" height="10" '
            f'fill="{PALETTE[i % len(PALETTE)]}"/><text x="{x + 14}" y="{y + 1}" '
            f'fill="#333">{_e(_short(name, 22))}<title>{_e(name)}</title></text>'
        )
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        tick_y = top + plot_h * (1 - tick)
        parts.append(
            f'<line class="grid" x1="{left}" y1="{_num(tick_y)}" x2="{width - 6}" '
            f'y2="{_num(tick_y)}" stroke="#e3e3e3"/><text x="{left - 4}" y="{_num(tick_y + 3)}" '
            'text-anchor="end" '
            f'fill="#666">{tick:g}</text>'
        )
    for g, group in enumerate(groups):
        x0 = left + g * group_w + gap / 2
        for s, name in enumerate(series):
            bar = values.get((group, name))
            if bar is None:
                continue
            parts.append(_bar(x0 + s * bar_w, top, plot_h, bar_w, bar, group, name, s))
        cx, label_y = x0 + len(series) * bar_w / 2, top + plot_h + 12
        parts.append(
            f'<text x="{_num(cx)}" y="{label_y}" text-anchor="end" fill="#333" '
            f'transform="rotate(-30 {_num(cx)} {label_y})">{_e(_short(group, 24))}'
            f"<title>{_e(group)}</title></text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _bar(x: float, top: int, plot_h: int, w: int, bar: Bar, group: str, name: str, i: int) -> str:
    def y(v: float) -> float:
        return top + plot_h * (1 - min(max(v, 0.0), 1.0))

    tip = f"{group} · {name}: mean {bar.mean:.3f}"
    if bar.low is not None and bar.high is not None:
        tip += f" (95 % CI {bar.low:.3f}–{bar.high:.3f})"
    if bar.n is not None:
        tip += f", n={bar.n}"
    out = (
        f'<rect class="bar" x="{_num(x + 1)}" y="{_num(y(bar.mean))}" width="{w - 2}" '
        f'height="{_num(top + plot_h - y(bar.mean))}" fill="{PALETTE[i % len(PALETTE)]}">'
        f"<title>{_e(tip)}</title></rect>"
    )
    if bar.low is not None and bar.high is not None:
        cx, lo, hi = x + w / 2, y(bar.low), y(bar.high)
        out += (
            f'<path class="ci" d="M{_num(cx)} {_num(lo)}V{_num(hi)}M{_num(cx - 3)} {_num(lo)}'
            f'h6M{_num(cx - 3)} {_num(hi)}h6" stroke="#222" stroke-width="1.2" fill="none"/>'
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
    for tick in (-half, -half / 2, 0.0, half / 2, half):
        parts.append(
            f'<line class="{"zero" if tick == 0 else "grid"}" x1="{x(tick)}" y1="{top}" '
            f'x2="{x(tick)}" y2="{height - 18}" stroke="{"#555" if tick == 0 else "#e3e3e3"}"/>'
            f'<text x="{x(tick)}" y="{height - 4}" text-anchor="middle" fill="#666">'
            f"{f'{tick:+g}' if tick else '0'}</text>"
        )
    for i, row in enumerate(rows):
        y0 = top + i * row_h
        parts.append(
            f'<g class="difference"><title>{_e(row.note)}</title>'
            f'<text x="{left}%" y="{y0 + 13}" fill="#333">{_e(row.metric)}</text>'
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
