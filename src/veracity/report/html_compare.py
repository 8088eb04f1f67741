"""``veracity compare --html``: the paired comparison of two runs (or two systems) as one
self-contained page: the differences B − A and their 95 % CIs as a chart, a table with
the p-values and pair counts, and the items that regressed most. No script at all.
"""

from __future__ import annotations

from pathlib import Path

from veracity.report.compare import Comparison, MetricComparison, Regression
from veracity.report.html import page, scroll, section
from veracity.report.html_charts import Difference, differences_chart
from veracity.report.html_tables import e
from veracity.store import write_text_atomic


def write_comparison(comparison: Comparison, out: Path) -> Path:
    """Write the comparison page to ``out`` and return its path."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out, (render_comparison(comparison),))
    return out


def _signed(value: float | None) -> str:
    return "—" if value is None else f"{value:+.3f}"


def _plain(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _p(entry: MetricComparison) -> str:
    test = entry.stats.test
    if test.p_value is None:
        return "—"
    mark = "" if test.method == "exact" else "~"
    return f"{mark}{test.p_value:.3g}" if test.p_value >= 0.001 else f"{mark}<0.001"


def _interval(entry: MetricComparison) -> str:
    ci = entry.stats.ci95
    return "—" if ci is None else f"{_signed(ci[0])} … {_signed(ci[1])}"


def _direction(entry: MetricComparison) -> str:
    """What the interval says, in words: the plain reading of the chart's colour."""
    ci = entry.stats.ci95
    if ci is None:
        return "nothing paired" if entry.stats.n == 0 else "too few pairs"
    if ci[0] > 0:
        return "B better"
    if ci[1] < 0:
        return "B worse"
    return "no clear difference"


def _table(comparison: Comparison) -> str:
    # What decides first, so it stays in view on a narrow screen.
    head = ("metric", "B − A", "95 % CI", "p", "n pairs", "reading", "mean A", "mean B",
            "up / down / same", "not compared")  # fmt: skip
    rows = []
    for entry in comparison.metrics:
        stats = entry.stats
        cells = [
            _signed(stats.mean_diff),
            _interval(entry),
            _p(entry),
            str(stats.n),
            _direction(entry),
            _plain(stats.mean_a),
            _plain(stats.mean_b),
            f"{entry.improved} / {entry.regressed_count} / {entry.unchanged}",
        ]
        rows.append(
            f'<tr><th scope="row">{e(entry.metric)}</th>'
            + "".join(f'<td class="num">{e(c)}</td>' for c in cells)
            + f"<td>{e(entry.not_compared() or '—')}</td></tr>"
        )
    header = "".join(f'<th scope="col">{e(h)}</th>' for h in head)
    return (
        f'<table class="summary comparison"><thead><tr>{header}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _chart(comparison: Comparison) -> str:
    rows = []
    for entry in comparison.metrics:
        stats = entry.stats
        ci = stats.ci95
        note = (
            f"{entry.metric}: B − A {_signed(stats.mean_diff)}, 95 % CI {_interval(entry)}, "
            f"p {_p(entry)}, n {stats.n}"
        )
        rows.append(
            Difference(
                entry.metric,
                stats.mean_diff,
                ci[0] if ci else None,
                ci[1] if ci else None,
                note,
            )
        )
    chart = differences_chart(rows)
    if not chart:
        return ""
    return (
        f'{chart}<p class="chart-note">Dots are the mean paired difference B − A (scores '
        "0–1); lines its 95 % confidence interval (paired bootstrap over samples): green "
        "when B is better, red when worse, grey when the interval holds 0.</p>"
    )


def _regressed_row(r: Regression) -> str:
    system = r.system_a if r.system_a == r.system_b else f"{r.system_a} → {r.system_b}"
    cells = [r.sample_id, system or "", str(r.iteration)]
    numbers = [_plain(r.score_a), _plain(r.score_b), _signed(r.diff)]
    return (
        "<tr>"
        + "".join(f"<td>{e(c)}</td>" for c in cells)
        + "".join(f'<td class="num">{e(c)}</td>' for c in numbers)
        + f'<td><p class="item-reason"><b>B:</b> {e(r.reason_b)}</p>'
        f'<p class="item-reason"><b>A:</b> {e(r.reason_a)}</p></td></tr>'
    )


def _regressed(comparison: Comparison) -> str:
    blocks = []
    for entry in comparison.metrics:
        if not entry.regressed:
            continue
        head = "".join(
            f'<th scope="col">{h}</th>'
            for h in ("sample", "system", "iteration", "A", "B", "B − A", "why")
        )
        rows = "".join(_regressed_row(r) for r in entry.regressed)
        blocks.append(
            f"<details><summary>{e(entry.metric)}: {entry.regressed_count} pair(s) down, "
            f"the {len(entry.regressed)} largest drops</summary>"
            f'<div class="table-scroll"><table class="worst"><thead><tr>{head}</tr></thead>'
            f"<tbody>{rows}</tbody></table></div></details>"
        )
    return "".join(blocks)


def render_comparison(comparison: Comparison) -> str:
    facts = [
        ("A (baseline)", comparison.label_a),
        ("B", comparison.label_b),
        ("paired on", " + ".join(comparison.pairing)),
    ]
    header = "<h1>veracity compare</h1>" + (
        '<dl class="facts">'
        + "".join(f'<div class="fact"><dt>{e(k)}</dt><dd>{e(v)}</dd></div>' for k, v in facts)
        + "</dl>"
    )
    note = (
        '<p class="chart-note">n pairs: results scored on both sides · up / down / same: '
        "pairs whose score rose, fell, stayed · p: two-sided paired sign-flip permutation "
        "test over samples (~ a Monte Carlo estimate, else exact).</p>"
    )
    sections = [
        section("differences", "Paired differences B − A", _chart(comparison)),
        section("comparison", "Per metric", scroll(_table(comparison)) + note),
        section("regressed", "Most regressed", _regressed(comparison)),
    ]
    return page(
        f"veracity compare · {Path(comparison.label_b).name} vs {Path(comparison.label_a).name}",
        header,
        "".join(sections),
    )
