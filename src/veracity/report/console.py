"""The summary as readable tables in the terminal."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from veracity.report.summary import OVERALL


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}"


def print_summary(summary: dict[str, Any], console: Console) -> None:
    table = Table(title="veracity summary (scores ×100)")
    for column in ("metric", "system"):
        table.add_column(column, no_wrap=True)
    for column in ("mean", "min", "max", "n", "scored"):
        table.add_column(column, justify="right", no_wrap=True)
    table.add_column("other statuses", overflow="fold")
    for metric, groups in summary["metrics"].items():
        rows = [(OVERALL, groups[OVERALL])]
        if len(groups["by_system"]) > 1:
            rows += list(groups["by_system"].items())
        for index, (system, stats) in enumerate(rows):
            others = ", ".join(
                f"{status} {count}"
                for status, count in stats["counts_by_status"].items()
                if count and status != "scored"
            )
            table.add_row(
                metric if index == 0 else "",
                system,
                _pct(stats["mean"]),
                _pct(stats["min"]),
                _pct(stats["max"]),
                str(stats["n"]),
                str(stats["n_scored"]),
                others or "—",
            )
    console.print(table)
    usage, cost = summary["usage"], summary["cost"]["total_usd"]
    spent = "cost unknown (no price for this model)" if cost is None else f"${cost:.4f}"
    console.print(
        f"{summary['results']} results · {summary['bad_rows']} bad row(s) · "
        f"{usage['calls']} judge calls ({usage['cached_calls']} more from the cache) · "
        f"{usage['input_tokens']} input / {usage['output_tokens']} output tokens · {spent}",
        highlight=False,
    )
