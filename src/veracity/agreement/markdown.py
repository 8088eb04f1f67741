"""``veracity agree --markdown``: the agreement figures as Markdown tables (a pull-request
comment, ``$GITHUB_STEP_SUMMARY``, a wiki)."""

from __future__ import annotations

from veracity.agreement.console import estimate, number
from veracity.agreement.model import FIGURE_NAMES, Agreement, MetricAgreement, PairedMetric
from veracity.report.markdown import md


def _metric(metric: MetricAgreement, run: str) -> list[str]:
    names = metric.figure_names()
    lines = [
        f"### {md(metric.metric)} against people's '{md(metric.target)}' ({md(metric.scale)})",
        "",
        f"Run {md(run)} · threshold {metric.threshold:g} · 95 % bootstrap intervals "
        f"({metric.resampling()})",
        "",
        "| items | n | good | " + " | ".join(FIGURE_NAMES[n] for n in names) + " |",
        "|---|---:|---:|" + "---:|" * len(names),
    ]
    for group in (metric.overall, *metric.by_system):
        f = group.figures
        rate = "—" if f.base_rate is None else f"{f.base_rate:.0%}"
        cells = " | ".join(estimate(f.estimate(n)) for n in names)
        name = "all" if group.system is None else md(group.system)
        lines.append(f"| {name} | {f.n} | {rate} | {cells} |")
    caveats = metric.caveats()
    if caveats:
        lines += ["", *(f"- ⚠ {md(caveat)}" for caveat in caveats)]
    if metric.against_raw is not None:
        lines += ["", *_against_raw(metric.against_raw)]
    ia = metric.inter_annotator
    if ia is not None and ia.items:
        lines += [
            "",
            f"People among themselves (the ceiling): {ia.annotators} annotators on {ia.items} "
            f"item(s), raw agreement {number(ia.raw_agreement)}, κ {number(ia.kappa)}.",
        ]
    worst = [*metric.overall.missed[:3], *metric.overall.false_alarms[:3]]
    if worst:
        lines += ["", "| worst disagreements | score | label | why |", "|---|---:|---:|---|"]
        for d in worst:
            lines.append(
                f"| {md(d.sample_id)} | {d.score:.3f} | {d.label:g} | {md(d.reason)[:200]} |"
            )
    return lines


def _against_raw(check: PairedMetric) -> list[str]:
    lines = [
        f"Calibrated − raw on the same {check.n} item(s), paired bootstrap 95 % intervals:",
        "",
        "| figure | raw | calibrated | calibrated − raw | 95% CI |",
        "|---|---:|---:|---:|---|",
    ]
    for name, e in check.figures.items():
        diff = "—" if e.diff is None else f"{e.diff:+.3f}"
        ci = "—" if e.ci95 is None else f"{e.ci95[0]:+.3f} … {e.ci95[1]:+.3f}"
        lines.append(
            f"| {FIGURE_NAMES.get(name, name)} | {number(e.a)} | {number(e.b)} | {diff} | {ci} |"
        )
    return lines


def markdown_agreement(report: Agreement) -> str:
    lines = [
        "## Agreement with people",
        "",
        f"Labels: {md(report.labels.source)} ({len(report.labels.items)} item(s), "
        f"{len(report.labels.bad_rows)} bad row(s)).",
    ]
    if report.labels.ignored:
        shown = "; ".join(f"{md(name)}: {md(why)}" for name, why in report.labels.ignored.items())
        lines += ["", f"Not read: {shown}."]
    if report.order_warning is not None:
        lines += ["", f"> **Warning:** {md(report.order_warning)}"]
    for run, metrics in zip(report.runs, report.metrics, strict=True):
        for metric in metrics:
            lines += ["", *_metric(metric, run)]
    if report.paired:
        a, b = report.runs
        lines += [
            "",
            f"### B − A on the same items (A: {md(a)}, B: {md(b)})",
            "",
            "| metric | figure | n | A | B | B − A | 95% CI |",
            "|---|---|---:|---:|---:|---:|---|",
        ]
        for paired in report.paired:
            for name, e in paired.figures.items():
                diff = "—" if e.diff is None else f"{e.diff:+.3f}"
                ci = "—" if e.ci95 is None else f"{e.ci95[0]:+.3f} … {e.ci95[1]:+.3f}"
                lines.append(
                    f"| {md(paired.metric)} | {FIGURE_NAMES.get(name, name)} | {paired.n} | "
                    f"{number(e.a)} | {number(e.b)} | {diff} | {ci} |"
                )
    lines += _gates(report)
    return "\n".join(lines) + "\n"


def _gates(report: Agreement) -> list[str]:
    if not report.gates:
        return []
    missed = sum(not check.met for check in report.gates)
    verdict = f"{missed} NOT met" if missed else "all met"
    lines = [
        "",
        f"### Gates: {verdict}",
        "",
        "The 95 % interval's lower bound must reach the minimum, overall and in each system.",
        "",
        "| gate | run | metric | items | n | lower bound | figure | |",
        "|---|---|---|---|---:|---:|---:|---|",
    ]
    for check in report.gates:
        system = "all" if check.system is None else md(check.system)
        low = "—" if check.low is None else f"{check.low:.3f}"
        mark = "✓ met" if check.met else "✗ NOT met"
        if check.low is None:
            mark += f": {md(check.reason)}"
        lines.append(
            f"| {md(str(check.gate))} | {md(check.run)} | {md(check.metric)} | {system} | "
            f"{check.n} | {low} | {number(check.value)} | {mark} |"
        )
    return lines


def github_annotations(report: Agreement) -> list[str]:
    """``::error`` lines for the gates missed, as ``veracity report --github`` writes them
    for thresholds."""
    from veracity.report.markdown import workflow_escape as escape

    lines = []
    for check in report.gates:
        if not check.met:
            title = escape(f"veracity agree: {check.gate} not met", property_value=True)
            lines.append(f"::error title={title}::{escape(f'{check.run}: {check.describe()}')}")
    return lines
