"""The summary as readable tables in the terminal.

Every text that comes from the data (system names, question types, reasons) goes into a
``Text``, never through rich markup, so a ``[bold]`` in an answer prints as written, and
has its control characters escaped (:mod:`veracity.report.terminal`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from veracity.report.groups import (
    by_rule,
    calibrated_line,
    caveats,
    ci,
    cost_text,
    pct,
    reading_line,
)
from veracity.report.keys import OVERALL
from veracity.report.terminal import visible, visible_tree


def others(stats: Mapping[str, Any]) -> str:
    """The results that are not ``scored`` by status, one per line, those of them with a
    score by rule, and the caveats."""
    found = [
        f"{status} {count}"
        for status, count in stats.get("counts_by_status", {}).items()
        if count and status != "scored"
    ]
    rule = by_rule(stats)
    if rule:
        found.append(f"({rule} of the scored by rule)")
    return "\n".join([*found, *caveats(stats)]) or "—"


def thresholds_line(summary: Mapping[str, Any]) -> str:
    """Which threshold each metric's pass rate used."""
    parts = []
    for metric, groups in summary["metrics"].items():
        threshold = groups.get("threshold")
        if isinstance(threshold, Mapping):
            default = "" if threshold.get("source") == "given" else " (default)"
            parts.append(f"{metric} {threshold['value']:g}{default}")
    return "pass: share of scored results at or above the threshold — " + ", ".join(parts)


def stats_columns(table: Table) -> None:
    for column in ("mean", "95% CI", "pass", "scored"):
        table.add_column(column, justify="right", no_wrap=True)
    # The longest status line ("unsupported_by_judge 999") fits in the minimum width; a
    # caveat wraps at its spaces rather than squeezing the numbers.
    table.add_column("other statuses", min_width=24)


def new_table(title: str, first: str) -> Table:
    """A summary table that fits 80 columns: no vertical rules, and a first column (the
    metric's or group's name) that is never folded."""
    table = Table(
        title=title, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True
    )
    table.add_column(first, no_wrap=True)
    return table


def stats_cells(stats: Mapping[str, Any]) -> list[str | Text]:
    return [
        pct(stats["mean"]),
        ci(stats),
        pct(stats.get("pass_rate")),
        f"{stats['n_scored']}/{stats['n']}",
        Text(others(stats)),
    ]


def calibrated_cells(stats: Mapping[str, Any], n: int) -> list[str | Text]:
    """A metric's calibrated probabilities in the columns of its scores (pass: the share
    at or above one half)."""
    return [pct(stats.get("mean")), ci(stats), pct(stats.get("pass_rate")),
            f"{stats.get('n', 0)}/{n}", Text("")]  # fmt: skip


def metrics_table(summary: Mapping[str, Any], *, with_systems: bool) -> Table:
    """One row per metric (and per system below it when asked and there are several),
    and below a calibrated metric the row of its calibrated probabilities."""
    table = new_table("veracity summary (scores ×100)", "metric")
    stats_columns(table)
    for metric, groups in summary["metrics"].items():
        overall = groups[OVERALL]
        table.add_row(Text(metric, style="bold"), *stats_cells(overall))
        calibrated = overall.get("calibrated")
        if isinstance(calibrated, Mapping) and calibrated.get("n"):
            table.add_row(Text("  ↳ calibrated"), *calibrated_cells(calibrated, overall["n"]))
        if with_systems and len(groups.get("by_system", {})) > 1:
            for system, stats in groups["by_system"].items():
                table.add_row(Text(f"  {system}"), *stats_cells(stats))
    return table


def usage_line(summary: Mapping[str, Any]) -> str:
    usage = summary["usage"]
    spent = cost_text(summary)
    return (
        f"{summary['results']} results · {summary['bad_rows']} bad row(s) · "
        f"{usage['calls']} judge calls ({usage['cached_calls']} more from the cache) · "
        f"{usage['input_tokens']} input / {usage['output_tokens']} output tokens · {spent}"
    )


# Said where a run judged offline because nothing named an LLM judge: a user who meant one
# learns it from the first line, not from the scores.
NO_JUDGE_CONFIGURED = "no --judge, and no OPENAI_API_KEY or OPENAI_BASE_URL configured"


def judge_line(judge: Mapping[str, Any] | None, *, defaulted: bool = False) -> str:
    """Which judge ran (a run's ``judge`` description): the offline judge said as such,
    and ``defaulted`` when it was chosen because no LLM judge was configured."""
    judge = judge or {}
    name = str(judge.get("name") or judge.get("model") or "unknown")
    if judge.get("provider") == "offline" or name.startswith("offline"):
        why = f"; {NO_JUDGE_CONFIGURED}" if defaulted else ""
        return f"judge: {name} (the offline judge: local models, no LLM call, no cost{why})"
    base_url = judge.get("base_url")
    return f"judge: {name}" + (f" at {base_url}" if base_url else "")


def print_recommendations(summary: Mapping[str, Any], console: Console) -> None:
    found = (summary.get("analysis") or {}).get("recommendations") or []
    if not found:
        return
    console.print("recommendations:", style="bold")
    for item in found:
        console.print(Text("  • ") + Text(str(item["message"])))


def print_summary(
    summary: dict[str, Any],
    console: Console,
    *,
    judge: Mapping[str, Any] | None = None,
    defaulted: bool = False,
) -> None:
    """The short summary printed after a run: the metrics table, the judge (its
    description in run.json, when given), usage, recommendations; every text of the
    summary with its control characters escaped."""
    summary = visible_tree(summary)
    console.print(metrics_table(summary, with_systems=True))
    console.print(thresholds_line(summary), style="dim", highlight=False)
    for line in (calibrated_line(summary), reading_line(summary)):
        if line is not None:
            console.print(Text(line))
    if judge is not None:
        console.print(Text(visible(judge_line(judge, defaulted=defaulted))))
    console.print(usage_line(summary), highlight=False)
    print_recommendations(summary, console)
