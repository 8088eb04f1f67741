"""``veracity agree`` on a terminal: per metric a table of the agreement figures with
their intervals, the worst disagreements, the people's own agreement; for two runs the
paired differences."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from veracity.agreement.model import (
    FIGURE_NAMES,
    Agreement,
    Disagreement,
    Estimate,
    GroupAgreement,
    MetricAgreement,
    PairedEstimate,
    PairedMetric,
)
from veracity.report.terminal import visible


def number(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def estimate(e: Estimate | None) -> str:
    if e is None or e.value is None:
        return "—"
    if e.ci95 is None:
        return number(e.value)
    return f"{e.value:.3f} ({e.ci95[0]:.3f}–{e.ci95[1]:.3f})"


def _cell(e: Estimate | None) -> Text:
    """A figure over its interval, on two lines, so a table stays narrow."""
    if e is None or e.value is None:
        return Text("—")
    cell = Text(f"{e.value:.3f}")
    if e.ci95 is not None:
        cell.append(f"\n{e.ci95[0]:.2f}–{e.ci95[1]:.2f}", style="dim")
    return cell


def metric_table(metric: MetricAgreement) -> Table:
    """A row per figure, a column per group of items (all, then each system)."""
    groups = (metric.overall, *metric.by_system)
    table = Table(
        caption=(
            f"threshold {metric.threshold:g} · under each figure its 95 % bootstrap interval "
            f"({metric.resampling()})"
        ),
    )
    table.add_column("")
    for group in groups:
        name = "all" if group.system is None else visible(group.system)
        table.add_column(Text(name), justify="right", overflow="fold")
    table.add_row("n", *(str(g.figures.n) for g in groups))
    table.add_row(
        "labelled good",
        *("—" if g.figures.base_rate is None else f"{g.figures.base_rate:.0%}" for g in groups),
    )
    for name in metric.figure_names():
        table.add_row(FIGURE_NAMES[name], *(_cell(g.figures.estimate(name)) for g in groups))
    return table


def _disagreements(title: str, items: Sequence[Disagreement], console: Console) -> None:
    if not items:
        return
    console.print(Text(title, style="bold"))
    for d in items:
        system = "" if d.system is None else f" [{visible(d.system)}]"
        console.print(
            Text(f"  {visible(d.sample_id)}{system}: score {d.score:.3f}, label {d.label:g}")
        )
        if d.answer:
            console.print(Text(f"    answer: {visible(d.answer)}", style="dim"))
        for claim in d.claims[:4]:
            verdict = claim.get("verdict", "?")
            p = claim.get("p_supported")
            shown = f"{verdict}" + ("" if p is None else f" p={float(p):.2f}")
            console.print(Text(f"    - {visible(claim.get('claim', ''))} → {shown}"))
            if claim.get("reason"):
                console.print(Text(f"      {visible(claim['reason'])}", style="dim"))
        if not d.claims:
            console.print(Text(f"    {visible(d.reason)}", style="dim"))


def _group_disagreements(metric: MetricAgreement, group: GroupAgreement, console: Console) -> None:
    _disagreements(f"{metric.metric}: labelled good, scored lowest", group.missed, console)
    _disagreements(f"{metric.metric}: labelled bad, scored highest", group.false_alarms, console)


def _print_labels(report: Agreement, console: Console) -> None:
    """What was read of the labels: rows, items, bad rows, fields not read, the order."""
    labels = report.labels
    console.print(
        Text(
            f"labels: {visible(labels.source)} · {labels.rows} row(s), {len(labels.items)} "
            f"item(s)" + (f", {len(labels.bad_rows)} bad row(s)" if labels.bad_rows else "")
        )
    )
    for row in labels.bad_rows[:5]:
        console.print(Text(f"  bad label row: {visible(row)}", style="yellow"))
    for name, why in labels.ignored.items():
        console.print(Text(f"  not read: {visible(name)}: {visible(why)}", style="yellow"))
    if report.order_warning is not None:
        console.print(Text(f"warning: {report.order_warning}", style="yellow"))


def print_agreement(report: Agreement, console: Console) -> None:
    _print_labels(report, console)
    for run, metrics in zip(report.runs, report.metrics, strict=True):
        if not metrics:
            console.print(Text(f"{visible(run)}: no metric of this run has labels", style="yellow"))
        for metric in metrics:
            # The heading on its own line: a narrow table would wrap it word by word.
            console.print(
                Text(
                    f"{visible(metric.metric)} against people's '{visible(metric.target)}' "
                    f"({metric.scale}) · {visible(run)}",
                    style="bold",
                )
            )
            console.print(metric_table(metric))
            for caveat in metric.caveats():
                console.print(Text(f"note: {visible(caveat)}", style="yellow"))
            unused = metric.not_used()
            if unused:
                console.print(Text(f"not used: {', '.join(unused)}", style="yellow"))
            if metric.against_raw is not None:
                console.print(_against_raw(metric.against_raw))
            ia = metric.inter_annotator
            if ia is not None and ia.items:
                console.print(
                    Text(
                        f"people among themselves (the ceiling): {ia.annotators} annotators on "
                        f"{ia.items} item(s), raw agreement {number(ia.raw_agreement)}, "
                        f"κ {number(ia.kappa)}"
                    )
                )
            if len(report.runs) == 1:
                _group_disagreements(metric, metric.overall, console)
    if report.targets_without_metric:
        console.print(
            Text(
                "labels no metric of the run measures: "
                + ", ".join(visible(t) for t in report.targets_without_metric),
                style="yellow",
            )
        )
    if report.paired:
        print_paired(report, console)
    print_gates(report, console)


def print_gates(report: Agreement, console: Console) -> None:
    """Each gate checked, met or not, then how many were missed."""
    if not report.gates:
        return
    several = len(report.runs) > 1
    for check in report.gates:
        run = f"{visible(check.run)} · " if several else ""
        console.print(
            Text(f"gate: {run}{visible(check.describe())}", style="green" if check.met else "red")
        )
    missed = sum(not check.met for check in report.gates)
    if missed:
        console.print(Text(f"{missed} of {len(report.gates)} gate(s) NOT met", style="bold red"))
    else:
        console.print(Text(f"all {len(report.gates)} gate(s) met", style="bold green"))


def _interval(e: PairedEstimate) -> str:
    return "—" if e.ci95 is None else f"{e.ci95[0]:+.3f}…{e.ci95[1]:+.3f}"


def _against_raw(check: PairedMetric) -> Table:
    """Calibrated − raw on the same items: the calibration's check on these labels."""
    table = Table(
        title=Text(f"{visible(check.metric)}: calibrated − raw on the same {check.n} item(s)"),
        caption="paired bootstrap 95 % intervals; an interval that excludes 0 is a real difference",
    )
    for name in ("figure", "raw", "calibrated", "calibrated − raw", "95% CI"):
        table.add_column(name, justify="left" if name == "figure" else "right")
    for name, e in check.figures.items():
        diff = "—" if e.diff is None else f"{e.diff:+.3f}"
        table.add_row(FIGURE_NAMES.get(name, name), number(e.a), number(e.b), diff, _interval(e))
    return table


def print_paired(report: Agreement, console: Console) -> None:
    a, b = report.runs
    table = Table(
        title=Text(f"B − A on the same labelled items · A: {visible(a)} · B: {visible(b)}"),
        caption="paired bootstrap 95 % intervals; an interval that excludes 0 is a real difference",
    )
    for name in ("metric", "figure", "n", "A", "B", "B − A", "95% CI"):
        table.add_column(name, justify="left" if name in ("metric", "figure") else "right")
    for paired in report.paired:
        for name, e in paired.figures.items():
            table.add_row(
                Text(paired.metric),
                FIGURE_NAMES.get(name, name),
                str(paired.n),
                number(e.a),
                number(e.b),
                "—" if e.diff is None else f"{e.diff:+.3f}",
                _interval(e),
            )
    console.print(table)
