"""The reading paths of the judge's replies in the summary and the reports."""

from __future__ import annotations

from rich.console import Console

from tests.report.ci_runs import result
from tests.report.factory import rec
from veracity.report.console import print_summary
from veracity.report.groups import reading_line
from veracity.report.markdown import markdown_summary
from veracity.report.run_data import load_run
from veracity.report.summary import summarize
from veracity.types import ResultRecord


def record(reading: dict[str, list[str]], sample_id: str = "s") -> ResultRecord:
    return rec(1.0, sample_id=sample_id, details={"reading": reading})


def test_the_summary_counts_the_paths_by_question() -> None:
    summary = summarize(
        [
            record({"claim_extraction": ["strict"], "claim_verification": ["fenced"]}),
            record({"claim_extraction": ["refusal", "strict"], "claim_verification": ["strict"]}),
        ]
    )
    overall = summary["metrics"]["faithfulness"]["overall"]
    assert overall["reading"] == {
        "claim_extraction": {"refusal": 1, "strict": 2},
        "claim_verification": {"fenced": 1, "strict": 1},
    }
    line = reading_line(summary)
    assert line is not None
    assert "claim_extraction: refusal 1 of 3" in line
    assert "claim_verification: fenced 1 of 2" in line


def test_no_reading_line_when_every_reply_was_strict_json() -> None:
    summary = summarize([record({"claim_extraction": ["strict"]})])
    assert reading_line(summary) is None


def test_the_reports_show_the_replies_not_read_as_strict_json() -> None:
    read = {"claim_extraction": ["strict"], "claim_verification": ["legacy_final_verdict"]}
    run = result([record(read, sample_id=f"s{i}") for i in range(2)])
    console = Console(width=200, record=True, color_system=None)
    print_summary(run.summary, console)
    shown = "faithfulness claim_verification: legacy_final_verdict 2 of 2"
    assert shown in console.export_text()
    assert shown.replace("_", "\\_") in markdown_summary(load_run(run))
