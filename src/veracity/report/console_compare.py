"""``veracity compare``: the paired differences as a table, then the regressed items."""

from __future__ import annotations

import re

from rich.console import Console
from rich.table import Table
from rich.text import Text

from veracity.report.compare import Comparison
from veracity.report.groups import pct
from veracity.report.terminal import visible


def _signed(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:+.1f}"


def _p(value: float | None, method: str | None) -> str:
    if value is None:
        return "—"
    mark = "" if method == "exact" else "~"
    return f"{mark}{value:.3g}" if value >= 0.001 else f"{mark}<0.001"


def _folded(name: str, width: int) -> str:
    """A metric name on lines of at most ``width`` characters, broken after its
    underscores (``citation_`` / ``precision``); a part longer than ``width`` stays whole."""
    lines: list[str] = []
    for part in re.findall(r"[^_]*_|[^_]+$", name) or [name]:
        if lines and len(lines[-1]) + len(part) <= width:
            lines[-1] += part
        else:
            lines.append(part)
    return "\n".join(lines)


def _interval(ci95: tuple[float, float] | None, narrow: bool) -> str:
    if ci95 is None:
        return "—"
    return f"{_signed(ci95[0])}…{chr(10) if narrow else ''}{_signed(ci95[1])}"


def comparison_table(comparison: Comparison, width: int | None = None) -> Table:
    """The table of paired differences; within ``width`` columns when given: where one
    line a metric does not fit, each interval takes two lines, then the metric names
    break after their underscores (and, as a last resort, anywhere), so that the table
    keeps its right border on an 80-column terminal."""
    table = _table(comparison, None, narrow=False)
    if width is None or _width(table) <= width:
        return table
    table = _table(comparison, None, narrow=True)
    if _width(table) <= width:
        return table
    others = _width(_table(comparison, 0, narrow=True))  # the metric column at its header
    return _table(comparison, max(width - others + len("metric"), 1), narrow=True)


def _width(table: Table) -> int:
    return Console(width=10_000).measure(table).maximum


def _table(comparison: Comparison, metric_width: int | None, *, narrow: bool) -> Table:
    """``metric_width``: None, names whole; 0, names left out (to measure the rest);
    else names broken to lines of that width."""
    table = Table(
        title=Text(
            f"B − A (scores ×100) · A: {visible(comparison.label_a)} · "
            f"B: {visible(comparison.label_b)}"
        ),
        caption=(
            "n: pairs both scored · A, B: their means · +/−/=: pairs up, down, unchanged · "
            "p: two-sided paired sign-flip permutation test (~ Monte Carlo, else exact)"
        ),
    )
    table.add_column("metric", overflow="fold")
    for name in ("n", "A", "B", "B − A", "95% CI", "p", "+/−/="):
        table.add_column(name, justify="right", no_wrap=True)
    for entry in comparison.metrics:
        stats = entry.stats
        name = visible(entry.metric)
        if metric_width is not None:
            name = _folded(name, metric_width) if metric_width else ""
        table.add_row(
            Text(name),
            str(stats.n),
            pct(stats.mean_a),
            pct(stats.mean_b),
            _signed(stats.mean_diff),
            _interval(stats.ci95, narrow),
            _p(stats.test.p_value, stats.test.method),
            f"{entry.improved}/{entry.regressed_count}/{entry.unchanged}",
        )
    return table


def print_comparison(comparison: Comparison, console: Console) -> None:
    console.print(comparison_table(comparison, console.width))
    for entry in comparison.metrics:
        missing = entry.not_compared()
        if missing:
            console.print(
                Text(f"{visible(entry.metric)} not compared: {visible(missing)}", style="yellow")
            )
    if any(m.stats.n == 0 and (m.unpaired_a or m.unpaired_b) for m in comparison.metrics):
        console.print(
            "some metrics have nothing paired: results pair on "
            f"{' + '.join(comparison.pairing)}; give samples the same id in both.",
            style="yellow",
            highlight=False,
        )
    for entry in comparison.metrics:
        if not entry.regressed:
            continue
        console.print(Text(f"most regressed on {visible(entry.metric)}:", style="bold"))
        for r in entry.regressed:
            where = (
                f"system {visible(r.system_a)}, " if r.system_a and r.system_a == r.system_b else ""
            )
            line = Text(f"  {_signed(r.diff)}  ", style="red")
            line.append(f"{visible(r.sample_id)} ({where}iteration {r.iteration}): ")
            line.append(f"{pct(r.score_a)} → {pct(r.score_b)}")
            console.print(line)
            if r.reason_a == r.reason_b:  # said once
                console.print(Text(f"      A and B: {visible(r.reason_b)}", style="dim"))
            else:
                console.print(Text(f"      B: {visible(r.reason_b)}", style="dim"))
                console.print(Text(f"      A: {visible(r.reason_a)}", style="dim"))
