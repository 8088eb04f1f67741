"""``report.html``: one self-contained page per run (no network), charts and a drill-down.

The page is built from the run directory alone: ``run.json``, ``summary.json`` and
``results.jsonl`` (streamed), plus the dataset ``run.json`` names when it is still there
unchanged, for the questions and answers. Charts are inline SVG drawn here; the
drill-down is an inline script over the samples embedded as JSON. Every piece of user
text is escaped in the HTML, escaped for ``<script>`` in the JSON, and inserted by the
script with ``textContent`` only; a Content-Security-Policy forbids any other script and
any request.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from veracity.report.groups import calibrated_line, reading_line
from veracity.report.html_analysis import analysis_section
from veracity.report.html_charts import Bar, grouped_bars, histogram
from veracity.report.html_data import STATUS_LABELS, Mean, ReportData, attach_texts, collect
from veracity.report.html_tables import (
    bar_of,
    e,
    extras,
    iteration_table,
    run_header,
    summary_table,
)
from veracity.report.keys import NO_SYSTEM, NO_TYPE
from veracity.store import REPORT, write_text_atomic

MAX_SAMPLES = 5_000
_SCRIPT_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def write_report(
    run_dir: Path,
    out: Path | None = None,
    *,
    dataset: Path | None = None,
    max_samples: int = MAX_SAMPLES,
) -> Path:
    """Write the run's HTML report (default ``RUN_DIR/report.html``) and return its path.

    ``dataset`` is the file of the run's samples, for the questions and answers; by
    default the one ``run.json`` names, if it is still there unchanged. At most
    ``max_samples`` samples are embedded for the drill-down (the charts count them all).
    """
    run_dir = Path(run_dir)
    target = Path(out) if out is not None else run_dir / REPORT
    data = collect(run_dir, max_samples)
    attach_texts(data, run_dir, dataset)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(target, (render(data),))
    return target


def script_json(value: Any) -> str:
    """JSON that is safe inside ``<script type="application/json">``: no ``</script>``,
    no ``<!--``, no line separators, whatever the strings hold."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return "".join(_SCRIPT_ESCAPES.get(ch, ch) for ch in text)


def _asset(name: str) -> str:
    return resources.files("veracity.report").joinpath("templates", name).read_text("utf-8")


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def render(data: ReportData) -> str:
    """The whole page as a string."""
    script = _asset("report.js")
    metrics = data.summary["metrics"]
    payload = {
        "metrics": data.metrics,
        "thresholds": data.thresholds,
        "status_labels": STATUS_LABELS,
        "no_system": NO_SYSTEM,
        "samples": list(data.samples.values()),
        "total_samples": data.total_samples,
        "truncated": data.truncated,
    }
    dataset = data.manifest.dataset.path or ""
    title = "veracity report" + (f" · {Path(str(dataset)).name}" if dataset else "")
    sections = [
        _notes(data.notes),
        section(
            "summary", "Summary per metric", scroll(summary_table(metrics)) + _calibrated(data)
        ),
        section("distributions", "Score distributions", _histograms(data)),
        section("systems", "Systems side by side", _systems(data, metrics)),
        section("question-types", "By question type", _question_types(data, metrics)),
        section("iterations", "Across iterations", scroll(iteration_table(metrics))),
        section("analysis", "Low-score analysis", analysis_section(data.summary.get("analysis"))),
        section("more-statistics", "More statistics", extras(metrics)),
        section("samples", "Samples", _drilldown()),
    ]
    return page(
        title,
        f"<h1>veracity report<small>{e(dataset)}</small></h1>"
        + run_header(data.manifest, data.summary),
        "".join(sections),
        script=script,
        payload=payload,
    )


def page(title: str, header: str, main: str, *, script: str = "", payload: Any = None) -> str:
    """A whole self-contained page: ``header`` and ``main`` are HTML already escaped;
    ``payload`` is embedded as JSON for ``script``, the only script the page may run
    (a Content-Security-Policy allows no other and no request)."""
    scripts = f"'sha256-{_sha256(script)}'" if script else "'none'"
    csp = (
        "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
        f"script-src {scripts}; base-uri 'none'; form-action 'none'"
    )
    tail = ""
    if script:
        tail = (
            f'<script type="application/json" id="veracity-data">{script_json(payload)}</script>'
            f"<script>{script}</script>"
        )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{e(csp)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        f'<title>{e(title)}</title><link rel="icon" href="data:,">'
        f"<style>{_asset('report.css')}</style></head><body>"
        f"<header>{header}</header><main>{main}</main>{tail}</body></html>\n"
    )


def section(key: str, title: str, body: str) -> str:
    if not body:
        return ""
    return f'<section id="{key}"><h2>{e(title)}</h2>{body}</section>'


def scroll(body: str) -> str:
    return f'<div class="table-scroll">{body}</div>' if body else ""


def _calibrated(data: ReportData) -> str:
    """The mean calibrated probabilities of a run given a calibration file, and the judge
    replies not read as strict JSON."""
    lines = [calibrated_line(data.summary), reading_line(data.summary)]
    return "".join(f'<p class="muted">{e(line)}</p>' for line in lines if line is not None)


def _notes(notes: Sequence[str]) -> str:
    if not notes:
        return ""
    return '<div class="notes-box">' + "".join(f"<p>{e(n)}</p>" for n in notes) + "</div>"


def _histograms(data: ReportData) -> str:
    figures = [
        f"<figure><figcaption>{e(metric)}</figcaption>"
        f"{histogram(metric, data.histograms[metric], data.unscored.get(metric, 0))}</figure>"
        for metric in data.metrics
        if metric in data.histograms
    ]
    return f'<div class="grid">{"".join(figures)}</div>' if figures else ""


def _bars(
    data: ReportData,
    metrics: Mapping[str, Any],
    key: str,
    names: Sequence[str],
    counted: Mapping[tuple[str, str], Mean],
    label: str,
) -> str:
    """Mean per metric and group: the summary's (with its CI) when it has them, else the
    means counted while reading the results."""
    values: dict[tuple[str, str], Bar] = {}
    for metric in data.metrics:
        groups = metrics[metric][key] if metric in metrics else {}
        for name in names:
            bar = bar_of(groups.get(name))
            seen = counted.get((metric, name))
            if bar is None and seen is not None and seen.value is not None:
                bar = Bar(seen.value, n=seen.n)
            if bar is not None:
                values[metric, name] = bar
    chart = grouped_bars(label, data.metrics, names, values)
    if not chart:
        return ""
    whiskers = any(b.low is not None for b in values.values())
    note = "Bars are mean scores" + (
        "; whiskers the 95 % confidence interval." if whiskers else "."
    )
    return f'<div class="chart-scroll">{chart}</div><p class="chart-note">{e(note)}</p>'


def _systems(data: ReportData, metrics: Mapping[str, Any]) -> str:
    return _bars(data, metrics, "by_system", data.systems, data.by_system, "mean score per system")


def _question_types(data: ReportData, metrics: Mapping[str, Any]) -> str:
    types = list(data.question_types)
    for groups in metrics.values():
        types += [t for t in groups["by_question_type"] if t not in types]
    if not [t for t in types if t != NO_TYPE]:
        return ""
    return _bars(
        data, metrics, "by_question_type", types, data.by_type, "mean score per question type"
    )


def _drilldown() -> str:
    controls = (
        '<div class="controls">'
        '<label class="toggle"><input id="f-failing" type="checkbox">'
        '<span id="f-failing-label">failing only</span></label>'
        '<label>metric<select id="f-metric"></select></label>'
        '<label>system<select id="f-system"></select></label>'
        '<label>status<select id="f-status"></select></label>'
        '<label>sort<select id="f-sort"><option value="order">dataset order</option>'
        '<option value="asc">score, lowest first</option>'
        '<option value="desc">score, highest first</option></select></label>'
        '<label>search<input id="f-search" type="search" placeholder="id, question, answer">'
        "</label></div>"
    )
    return (
        f'{controls}<p id="sample-count"></p><div class="table-scroll" id="sample-scroll">'
        '<table id="sample-table"><thead><tr id="sample-head"></tr></thead>'
        '<tbody id="sample-rows"></tbody></table></div>'
        '<button id="more" type="button" hidden>show more</button>'
        "<noscript><p>The sample drill-down needs JavaScript.</p></noscript>"
    )
