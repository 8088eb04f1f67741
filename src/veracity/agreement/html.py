"""``veracity agree --html``: the agreement of a run's scores with people's labels as one
self-contained page, built like the comparison page from the run report's pieces (no
script, no request). Per run and metric: the figures with their 95 % intervals overall
and per system, the ROC curve, the reliability diagram, the confusion matrix at the
threshold, what was not used, the people's own agreement, and the worst disagreements in
both directions with their claims; for two runs, the paired differences.

Every text from the labels or the runs is escaped, with control characters shown as
escapes (they would otherwise be invisible or make the file unwritable).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from veracity.agreement.console import estimate, number
from veracity.agreement.html_charts import Curve, reliability_chart, roc_chart
from veracity.agreement.model import (
    FIGURE_NAMES,
    LOWER_IS_BETTER,
    Agreement,
    Disagreement,
    Estimate,
    Figures,
    GateCheck,
    GroupAgreement,
    MetricAgreement,
    PairedEstimate,
)
from veracity.report.html import page, scroll, section
from veracity.report.html_charts import PALETTE
from veracity.report.html_tables import e
from veracity.store import write_text_atomic

# C0/C1 controls but tab and newlines, and lone surrogates (UTF-8 cannot write them).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_VERDICTS = ("supported", "contradicted", "not_enough_info")


def write_agreement_html(report: Agreement, out: Path) -> Path:
    """Write the agreement page to ``out`` and return its path."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out, (render_agreement_html(report),))
    return out


def clean(value: object) -> str:
    """Text from data with control characters (and lone surrogates) shown as escapes."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], str(value))


def t(value: object) -> str:
    """Text from data, cleaned and escaped."""
    return e(clean(value))


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def _signed(value: float | None) -> str:
    return "—" if value is None else f"{value:+.3f}"


def _cell(value: Estimate | None) -> str:
    if value is None or value.value is None:
        why = "" if value is None or not value.reason else value.reason
        shown = f'<abbr title="{t(why)}">—</abbr>' if why else "—"
        return f'<td class="num">{shown}</td>'
    interval = (
        f'<span class="ci">{value.ci95[0]:.3f}–{value.ci95[1]:.3f}</span>'
        if value.ci95 is not None
        else f'<span class="ci" title="{t(value.reason or "")}">no interval</span>'
    )
    return f'<td class="num">{value.value:.3f}{interval}</td>'


def _figures_table(metric: MetricAgreement) -> str:
    names = metric.figure_names()
    head = ["items", "n", "labelled good", *(FIGURE_NAMES[n] for n in names)]
    rows: list[str] = []
    reasons: dict[str, None] = {}
    for group in (metric.overall, *metric.by_system):
        f = group.figures
        name = "all" if group.system is None else group.system
        cells = [f.estimate(n) for n in names]
        rows.append(
            f'<tr><th scope="row">{t(name)}</th><td class="num">{f.n}</td>'
            f'<td class="num">{_percent(f.base_rate)}</td>'
            + "".join(_cell(c) for c in cells)
            + "</tr>"
        )
        for n, c in zip(names, cells, strict=True):
            if c is not None and c.value is None and c.reason:
                reasons.setdefault(f"{FIGURE_NAMES[n]}: {c.reason}", None)
    header = "".join(f'<th scope="col">{e(h)}</th>' for h in head)
    table = (
        f'<table class="figures"><thead><tr>{header}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
    missing = (
        '<ul class="notes">' + "".join(f"<li>— {t(r)}</li>" for r in reasons) + "</ul>"
        if reasons
        else ""
    )
    return scroll(table) + missing


def _facts(metric: MetricAgreement, run: str, runs: int) -> str:
    f = metric.overall.figures
    facts = [
        ("run", run) if runs > 1 else None,
        ("people's label", f"{metric.target} ({metric.scale})"),
        ("threshold", f"{metric.threshold:g}"),
        ("n", str(f.n)),
        ("labelled good", f"{_percent(f.base_rate)} ({f.n_positive})"),
        ("best threshold", "—" if f.best_threshold is None else f"{f.best_threshold:.3g}"),
    ]
    shown = [fact for fact in facts if fact is not None]
    return (
        '<dl class="kv">'
        + "".join(f"<div><dt>{e(k)}</dt><dd>{t(v)}</dd></div>" for k, v in shown)
        + "</dl>"
    )


def _at_threshold(f: Figures) -> tuple[float, float] | None:
    c = f.confusion
    good, bad = c["tp"] + c["fn"], c["fp"] + c["tn"]
    return (c["fp"] / bad, c["tp"] / good) if good and bad else None


def _roc(metric: MetricAgreement) -> str:
    groups: Sequence[GroupAgreement] = (metric.overall, *metric.by_system)
    curves, legend = [], []
    for i, group in enumerate(groups):
        f = group.figures
        if len(f.roc) < 2:
            continue
        colour = "#1f2a44" if group.system is None else PALETTE[(i - 1) % len(PALETTE)]
        title = f"{'all' if group.system is None else group.system} · AUROC {estimate(f.auroc)}"
        curves.append(Curve(f.roc, colour, t(title), _at_threshold(f), group.system is None))
        legend.append(
            f'<li><span class="swatch" style="background:{colour}"></span>'
            f"<span>{t(title)}</span></li>"
        )
    chart = roc_chart(curves, e(f"ROC curve of {metric.metric}"))
    if not chart:
        return ""
    return (
        f"<figure><figcaption>ROC · AUROC {e(estimate(metric.overall.figures.auroc))}"
        f'</figcaption>{chart}<ul class="legend">{"".join(legend)}</ul>'
        '<p class="chart-note">Each step lowers the threshold past one score; the circle '
        "is the run's threshold; the dashed diagonal is chance.</p></figure>"
    )


def _reliability(metric: MetricAgreement) -> str:
    f = metric.overall.figures
    if not metric.probability_like or not f.reliability:
        return ""
    chart = reliability_chart(f.reliability, e(f"reliability diagram of {metric.metric}"))
    ece = f" · ECE {e(estimate(f.ece))}" if f.ece is not None else ""
    return (
        f"<figure><figcaption>Reliability{ece}</figcaption>{chart}"
        '<p class="chart-note">Per score bin (n items under the axis): the share labelled '
        "good against the mean score. On the dashed diagonal a score is the chance that "
        "people call the answer good.</p></figure>"
    )


def _confusion(metric: MetricAgreement) -> str:
    c = metric.overall.figures.confusion
    if not any(c.values()):
        return ""
    at = f"{metric.threshold:g}"
    return (
        f"<figure><figcaption>At the threshold {e(at)}</figcaption>"
        '<table class="confusion"><thead><tr><th></th>'
        f'<th scope="col">score ≥ {e(at)}</th><th scope="col">score &lt; {e(at)}</th>'
        '</tr></thead><tbody><tr><th scope="row">labelled good</th>'
        f'<td class="agree-cell">{c["tp"]}</td><td class="disagree-cell">{c["fn"]}</td></tr>'
        '<tr><th scope="row">labelled bad</th>'
        f'<td class="disagree-cell">{c["fp"]}</td><td class="agree-cell">{c["tn"]}</td></tr>'
        '</tbody></table><p class="chart-note">Green: score and people agree; red: they '
        "disagree.</p></figure>"
    )


def _not_used(metric: MetricAgreement) -> str:
    parts = metric.not_used()
    if not parts:
        return '<p class="muted">Not used: nothing — every label met a scored result.</p>'
    return "<p><b>Not used:</b> " + t(", ".join(parts)) + ".</p>"


def _ceiling(metric: MetricAgreement) -> str:
    ia = metric.inter_annotator
    if ia is None or not ia.items:
        return ""
    return (
        f"<p><b>People among themselves</b> (the ceiling): {ia.annotators} annotators on "
        f"{ia.items} item(s) with two votes or more; raw agreement "
        f"{e(number(ia.raw_agreement))}, κ {e(number(ia.kappa))}"
        f"{f' (mean over {ia.pairs} annotator pairs)' if ia.pairs else ''}.</p>"
    )


def _claim(claim: dict[str, object]) -> str:
    verdict = str(claim.get("verdict", ""))
    kind = verdict if verdict in _VERDICTS else "other"
    p = claim.get("p_supported")
    shown_p = (
        f'<span class="p-supported">p {float(p):.2f}</span>'
        if isinstance(p, int | float) and not isinstance(p, bool)
        else ""
    )
    reason = claim.get("reason")
    evidence = claim.get("evidence")
    return (
        f'<li class="verdict verdict-{kind}"><span class="verdict-label">'
        f"{t(verdict.replace('_', ' ') or '?')}</span>"
        f'<span class="item-text">{t(claim.get("claim", ""))}</span>{shown_p}'
        + (f'<p class="item-reason">{t(reason)}</p>' if reason else "")
        + (f'<blockquote class="evidence">{t(evidence)}</blockquote>' if evidence else "")
        + (
            '<p class="evidence-not-found">the quoted evidence is not in the contexts</p>'
            if claim.get("evidence_not_found")
            else ""
        )
        + "</li>"
    )


def _item(d: Disagreement) -> str:
    votes = ", ".join(f"{'anonymous' if a is None else a}: {v:g}" for a, v in d.votes)
    texts = [("votes", votes), ("question", d.question), ("answer", d.answer)]
    if not d.claims:
        texts.append(("reason", d.reason))
    system = f" · system {t(d.system)}" if d.system is not None else ""
    return (
        f'<article class="metric-card"><h4 class="item-id">{t(d.sample_id)}</h4>'
        f'<p class="item-meta"><b>score {d.score:.3f} · label {d.label:g}</b>{system}</p>'
        '<dl class="texts">'
        + "".join(f"<div><dt>{e(k)}</dt><dd>{t(v)}</dd></div>" for k, v in texts if v)
        + "</dl>"
        + (f'<ul class="claims">{"".join(_claim(c) for c in d.claims)}</ul>' if d.claims else "")
        + "</article>"
    )


def _disagreements(metric: MetricAgreement) -> str:
    blocks = []
    for title, items in (
        ("Labelled good, scored low", metric.overall.missed),
        ("Labelled bad, scored high", metric.overall.false_alarms),
    ):
        body = "".join(_item(d) for d in items) or '<p class="muted">None.</p>'
        blocks.append(f"<h3>{e(title)} ({len(items)})</h3>{body}")
    return "".join(blocks)


def _caveats(metric: MetricAgreement) -> str:
    caveats = metric.caveats()
    if not caveats:
        return ""
    return '<div class="notes-box">' + "".join(f"<p>{t(c)}</p>" for c in caveats) + "</div>"


def _metric(metric: MetricAgreement, run: str, runs: int, key: str) -> str:
    body = (
        _facts(metric, run, runs)
        + _figures_table(metric)
        + f'<p class="chart-note">Each figure with its 95 % bootstrap interval '
        f"({e(metric.resampling())}); balanced "
        f"accuracy at the threshold {e(f'{metric.threshold:g}')} and, cross-validated, at "
        "the best threshold of the other folds.</p>"
        + _caveats(metric)
        + _against_raw(metric)
        + f'<div class="charts">{_roc(metric)}{_reliability(metric)}{_confusion(metric)}</div>'
        + _not_used(metric)
        + _ceiling(metric)
        + _disagreements(metric)
    )
    title = f"{metric.metric} against people's '{metric.target}'"
    return section(key, title + (f" · {run}" if runs > 1 else ""), body)


def _reading(name: str, value: PairedEstimate, who: str = "B") -> tuple[str, str]:
    if value.ci95 is None:
        return value.reason or "no interval", ""
    low, high = value.ci95
    if low > 0 or high < 0:
        better = (low > 0) != (name in LOWER_IS_BETTER)
        return (f"{who} better", "reading-better") if better else (f"{who} worse", "reading-worse")
    return "no clear difference", ""


def _paired(report: Agreement) -> str:
    if not report.paired:
        return ""
    # What decides first, so it stays in view on a narrow screen (as on the compare page).
    head = "".join(
        f'<th scope="col">{e(h)}</th>' for h in ("figure", "B − A", "95 % CI", "reading", "A", "B")
    )
    groups = "".join(
        f'<tbody><tr class="group"><th scope="rowgroup" colspan="6">{t(paired.metric)} · '
        f"{paired.n} item(s) in both runs</th></tr>"
        + "".join(_paired_row(name, value) for name, value in paired.figures.items())
        + "</tbody>"
        for paired in report.paired
    )
    a, b = report.runs
    return scroll(f'<table class="paired"><thead><tr>{head}</tr></thead>{groups}</table>') + (
        f'<p class="chart-note">A: {t(a)} · B: {t(b)}. The interval of B − A is a paired '
        "bootstrap over the same items; the reading says whether it excludes 0. For Brier "
        "and ECE lower is better.</p>"
    )


def _against_raw(metric: MetricAgreement) -> str:
    """Calibrated − raw on the same items: the calibration's check on these labels."""
    check = metric.against_raw
    if check is None:
        return ""
    head = "".join(
        f'<th scope="col">{e(h)}</th>'
        for h in ("figure", "calibrated − raw", "95 % CI", "reading", "raw", "calibrated")
    )
    rows = "".join(_paired_row(n, v, "calibrated") for n, v in check.figures.items())
    return (
        f"<h3>Calibrated − raw on the same {check.n} item(s)</h3>"
        + scroll(
            f'<table class="paired"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'
        )
        + '<p class="chart-note">A paired bootstrap over the same items; the reading says '
        "whether the interval excludes 0. For Brier and ECE lower is better.</p>"
    )


def _paired_row(name: str, value: PairedEstimate, who: str = "B") -> str:
    reading, css = _reading(name, value, who)
    interval = "—" if value.ci95 is None else f"{value.ci95[0]:+.3f}…{value.ci95[1]:+.3f}"
    return (
        f'<tr><th scope="row">{e(FIGURE_NAMES.get(name, name))}</th>'
        f'<td class="num">{_signed(value.diff)}</td><td class="num">{e(interval)}</td>'
        f'<td class="{css}">{t(reading)}</td><td class="num">{number(value.a)}</td>'
        f'<td class="num">{number(value.b)}</td></tr>'
    )


def _notes(report: Agreement) -> str:
    labels = report.labels
    notes = [f"bad label row: {row.location}: {row.message}" for row in labels.bad_rows[:20]]
    if len(labels.bad_rows) > 20:
        notes.append(f"… and {len(labels.bad_rows) - 20} more bad row(s)")
    notes += [f"not read: {name}: {why}" for name, why in labels.ignored.items()]
    if report.order_warning is not None:
        notes.append(f"warning: {report.order_warning}")
    if report.targets_without_metric:
        notes.append(
            "labels no metric of the run measures: " + ", ".join(report.targets_without_metric)
        )
    runs = zip(report.runs, report.metrics, strict=True)
    notes += [f"{run}: no metric of this run has labels" for run, metrics in runs if not metrics]
    if not notes:
        return ""
    return '<div class="notes-box">' + "".join(f"<p>{t(n)}</p>" for n in notes) + "</div>"


def _gate_row(check: GateCheck) -> str:
    low = "—" if check.low is None else f"{check.low:.3f}"
    verdict = "met" if check.met else "NOT met"
    if check.low is None:
        verdict += f": {check.reason}"
    return (
        f'<tr><th scope="row">{t(check.gate)}</th><td>{t(check.metric)}</td>'
        f"<td>{t('all' if check.system is None else check.system)}</td>"
        f'<td class="num">{low}</td>'
        f'<td class="{"reading-better" if check.met else "reading-worse"}">{t(verdict)}</td></tr>'
    )


def _gates(report: Agreement) -> str:
    """Each gate checked (``--min``), first, since it decides the exit code."""
    if not report.gates:
        return ""
    missed = sum(not check.met for check in report.gates)
    head = "".join(
        f'<th scope="col">{e(h)}</th>' for h in ("gate", "metric", "items", "lower bound", "")
    )
    rows = "".join(_gate_row(check) for check in report.gates)
    table = f'<table class="paired"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'
    note = (
        '<p class="chart-note">A gate is met where the 95 % interval&#x27;s lower bound '
        "reaches its minimum, overall and in each system.</p>"
    )
    return section("gates", f"Gates: {missed} NOT met" if missed else "Gates: all met",
                   scroll(table) + note)  # fmt: skip


def render_agreement_html(report: Agreement) -> str:
    """The whole page as a string."""
    labels = report.labels
    facts = [
        *((f"run {'AB'[i]}" if len(report.runs) > 1 else "run", r)
          for i, r in enumerate(report.runs)),
        ("labels", labels.source),
        ("rows", f"{labels.rows} ({len(labels.bad_rows)} bad)"),
        ("labelled items", str(len(labels.items))),
        ("targets", ", ".join(f"{k} ({s.describe()})" for k, s in labels.scales.items())),
    ]  # fmt: skip
    header = "<h1>veracity agree<small>agreement with people</small></h1>" + (
        '<dl class="facts">'
        + "".join(f'<div class="fact"><dt>{e(k)}</dt><dd>{t(v)}</dd></div>' for k, v in facts)
        + "</dl>"
    )
    sections = [
        _metric(metric, run, len(report.runs), f"agreement-{r}-{m}")
        for r, (run, metrics) in enumerate(zip(report.runs, report.metrics, strict=True))
        for m, metric in enumerate(metrics)
    ]
    paired = section("paired", "B − A on the same labelled items", _paired(report))
    gates = _gates(report)
    main = f'<div class="agree">{_notes(report)}{gates}{"".join(sections)}{paired}</div>'
    name = Path(labels.source).name or labels.source
    return page(f"veracity agree · {clean(name)}", header, main)
