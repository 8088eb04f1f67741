"""Issue 48 item 11: one definition of scored — the results with a score, those the mean
and the pass rate are over (summary.json's n_scored) — in every report."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from rich.console import Console

from tests.html.page import parse, rows
from tests.report.ci_runs import result
from tests.report.factory import rec
from veracity.evaluation.notebook import summary_html
from veracity.report.console import print_summary
from veracity.report.html_tables import summary_table
from veracity.report.junit import junit_xml
from veracity.report.markdown import markdown_summary
from veracity.report.run_data import load_run
from veracity.types import Status

ITEMS = [
    rec(0.4, sample_id="a"),
    rec(1.0, sample_id="b", status=Status.NO_CLAIMS),
    rec(1.0, sample_id="c", status=Status.NO_CLAIMS),
    rec(None, sample_id="d"),  # a judge error: no score
]


def test_every_report_counts_scored_as_n_scored() -> None:
    run = load_run(result(ITEMS, faithfulness=0.5))
    overall = run.metrics["faithfulness"]["overall"]
    assert (overall["n_scored"], overall["n"]) == (3, 4)
    assert overall["pass_rate"] == 2 / 3  # over the three with a score

    console = Console(width=120, record=True, color_system=None)
    print_summary(run.summary, console)
    row = next(line for line in console.export_text().splitlines() if "faithfulness " in line)
    assert " 3/4 " in row

    assert "| 3/4 (2 by rule) |" in markdown_summary(run)
    suite = ET.fromstring(junit_xml(run)).find("testsuite")
    assert suite is not None
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties["scored"] == "3/4"
    notebook = {r.heading: r for r in rows(parse(summary_html(run.summary, None)).find("table"))}
    assert notebook["faithfulness"]["scored"] == "3/4"
    [report] = rows(parse(summary_table(run.metrics)).find("table"))
    assert (report["results"], report["scored"]) == ("4", "3")
