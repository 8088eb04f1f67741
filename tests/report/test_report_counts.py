"""One definition of "scored" everywhere (the summary's: judged), and a
run that says how to get its HTML report."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tests.report.factory import rec
from veracity.cli.app import app
from veracity.report import summarize
from veracity.types import Status


def test_the_severity_table_counts_scored_as_the_summary_does() -> None:
    records = [
        rec(0.9, sample_id="a"),
        rec(0.2, sample_id="b"),
        rec(1.0, sample_id="c", status=Status.NO_CLAIMS),
        rec(0.0, sample_id="d", status=Status.NO_CONTEXTS),
    ]
    summary = summarize(records, ["faithfulness"], {})
    overall = summary["metrics"]["faithfulness"]["overall"]
    severity = summary["analysis"]["severity"]["faithfulness"]
    assert severity["scored"] == overall["counts_by_status"]["scored"] == 2
    assert severity["with_score"] == 4
    assert severity["failing"] == 2  # b, and d scored 0 by rule


def test_a_run_says_how_to_get_its_html_report(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text('{"id": "s1", "question": "q", "contexts": ["It is red."], "answer": ""}\n')
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", str(data), "--judge", "offline", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"veracity report {out} --html" in " ".join(result.output.split())
