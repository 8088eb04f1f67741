"""``veracity report``: the whole summary in the terminal, analysis included."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from veracity.report.console import (
    judge_line,
    metrics_table,
    new_table,
    print_recommendations,
    stats_cells,
    stats_columns,
    thresholds_line,
    usage_line,
)
from veracity.report.groups import calibrated_line, pct, reading_line
from veracity.report.terminal import visible, visible_tree

SECTION_TITLES = {
    "by_system": ("system", "per system"),
    "by_question_type": ("question type", "per question type"),
    "by_iteration": ("iteration", "per iteration"),
}
VERDICT_STYLE = {"contradicted": "red", "not_enough_info": "yellow"}


def _groups_table(summary: Mapping[str, Any], section: str) -> Table | None:
    """Each metric's groups of ``section``, when some metric has two groups or more."""
    column, title = SECTION_TITLES[section]
    metrics = summary["metrics"]
    if all(len(groups.get(section, {})) < 2 for groups in metrics.values()):
        return None
    table = new_table(f"{title} (scores ×100)", f"metric / {column}")
    stats_columns(table)
    for metric, groups in metrics.items():
        table.add_row(Text(metric, style="bold"))
        for group, stats in groups.get(section, {}).items():
            table.add_row(Text(f"  {group}"), *stats_cells(stats))
    return table


def _variance_table(summary: Mapping[str, Any]) -> Table | None:
    rows = [
        (m, g["judge_variance"]) for m, g in summary["metrics"].items() if g.get("judge_variance")
    ]
    if not rows:
        return None
    table = Table(title="judge variance across iterations (×100)")
    table.add_column("metric", overflow="fold")
    for name in ("iterations", "items", "std mean/max", "range mean/max", "flips"):
        table.add_column(name, justify="right", no_wrap=True)
    for metric, v in rows:
        table.add_row(
            Text(metric),
            str(v["iterations"]),
            str(v["items_compared"]),
            f"{pct(v['std']['mean'])}/{pct(v['std']['max'])}",
            f"{pct(v['range']['mean'])}/{pct(v['range']['max'])}",
            f"{v['flipped_items']} ({pct(v['flip_rate'])}%)",
        )
    return table


def _labels(summary: Mapping[str, Any], console: Console) -> None:
    for metric, groups in summary["metrics"].items():
        for key in ("classification", "grades", "passed"):
            found = groups["overall"].get(key)
            if not found:
                continue
            counts = ", ".join(
                f"{label} {count} ({pct(found['rates'][label])}%)"
                for label, count in found["counts"].items()
            )
            console.print(Text(f"{metric} {key}: {counts}"))


def _severity_table(analysis: Mapping[str, Any]) -> Table:
    table = Table(
        title="failures by severity",
        caption="failing: below the threshold, of the results with a score (scored, or by "
        "rule: no claims, no contexts); score bands ×100",
    )
    table.add_column("metric", overflow="fold")
    for name in ("failing", "<25", "25–50", "50–75", "≥75", "errors"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("of the failing", overflow="fold")
    for metric, s in analysis["severity"].items():
        more = []
        if s["rubric_overall"]:
            more.append("rubric " + ", ".join(f"{k}: {v}" for k, v in s["rubric_overall"].items()))
        if s["claims_in_failing"] and s["failing"]:
            claims = s["claims_in_failing"]
            counts = (
                (claims["contradicted"], "contradicted"),
                (claims["not_enough_info"], "unsupported"),
                (claims.get("misattributed") or 0, "misattributed"),
            )
            said = [f"{n} {word}" for n, word in counts if n]
            if said:
                more.append(
                    ", ".join(said) + " claim" + ("" if sum(n for n, _ in counts) == 1 else "s")
                )
        table.add_row(
            Text(metric),
            f"{s['failing']}/{s.get('with_score', s['scored'])}",
            *(str(count) for count in s["bands"].values()),
            str(s["judge_errors"] + s["unsupported_by_judge"]),
            Text("; ".join(more) or "—"),
        )
    return table


def _worst(analysis: Mapping[str, Any], console: Console, limit: int | None) -> None:
    for metric, items in analysis["worst"].items():
        failing = [item for item in items if item["failing"]][:limit]
        if not failing:
            continue
        console.print(Text(f"worst {metric} results:", style="bold"))
        for item in failing:
            where = [
                f"{name} {item[key]}"
                for key, name in (("system", "system"), ("question_type", "type"))
                if item.get(key)
            ]
            where.append(f"iteration {item['iteration']}")
            head = f"  {pct(item['score'])}  {item['sample_id']} ({', '.join(where)})"
            console.print(Text(head, style="bold") + Text(f" — {item['reason']}"))
            for claim in item["failing_claims"]:
                line = Text(
                    f"    ✗ {claim['verdict']}: ", style=VERDICT_STYLE.get(claim["verdict"], "")
                )
                line.append(claim["claim"])
                console.print(line)
                if claim.get("citations"):
                    console.print(Text(f"        {claim['citations']}", style="dim"))
                for label in ("evidence", "reason"):
                    if claim.get(label):
                        console.print(Text(f"        {label}: {claim[label]}", style="dim"))
            for dim in item["failing_dimensions"]:
                console.print(Text(f"    ✗ {dim['name']} {dim['score']} < {dim['minimum']}: "
                                   f"{dim['reasoning']}"))  # fmt: skip


def print_report(
    summary: Mapping[str, Any],
    console: Console,
    *,
    worst_limit: int | None = None,
    judge: Mapping[str, Any] | None = None,
) -> None:
    """Metrics, groups, judge variance, labels, the analysis, the judge (its description
    in run.json, when given) and the recommendations; every text of the summary with its
    control characters escaped."""
    summary = visible_tree(summary)
    console.print(metrics_table(summary, with_systems=False))
    console.print(thresholds_line(summary), style="dim", highlight=False)
    for line in (calibrated_line(summary), reading_line(summary)):
        if line is not None:
            console.print(Text(line))
    for section in SECTION_TITLES:
        table = _groups_table(summary, section)
        if table is not None:
            console.print(table)
    variance = _variance_table(summary)
    if variance is not None:
        console.print(variance)
    _labels(summary, console)
    analysis = summary.get("analysis")
    if analysis:
        console.print(_severity_table(analysis))
        _worst(analysis, console, worst_limit)
    if judge is not None:
        console.print(Text(visible(judge_line(judge))))
    console.print(usage_line(summary), highlight=False)
    print_recommendations(summary, console)
