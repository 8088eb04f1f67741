"""``veracity report --format junit|markdown``: a run in the formats CI systems read.

The report never gates: it exits 0 once written, whatever the thresholds say (the gate is
``veracity run --threshold``, exit 1), and 2 when the run or an option is unusable.
"""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from veracity.cli.common import cannot_write, err_console, fail

if TYPE_CHECKING:
    from veracity.report.run_data import RunData

STEP_SUMMARY = "GITHUB_STEP_SUMMARY"


class ReportFormat(StrEnum):
    CONSOLE = "console"
    JUNIT = "junit"
    MARKDOWN = "markdown"


FormatOption = Annotated[
    ReportFormat,
    typer.Option(
        "--format",
        help="console (the full report), junit (XML test results: a case per sample and "
        "metric with a threshold) or markdown (the summary table).",
    ),
]
OutOption = Annotated[
    Path | None, typer.Option("--out", help="Write the junit or markdown report to this file.")
]
ThresholdOption = Annotated[
    list[str] | None,
    typer.Option(
        "--threshold",
        metavar="METRIC=V",
        help="metric=value: judge the run against it (repeatable).",
    ),
]
GithubOption = Annotated[
    bool,
    typer.Option(
        "--github",
        help=f"With --format markdown: append it to ${STEP_SUMMARY} and print ::error "
        "annotations for the thresholds missed.",
    ),
]


def check_options(report_format: ReportFormat, out: Path | None, github: bool) -> None:
    """Fail on options that do not go with ``report_format``."""
    if out is not None and report_format is ReportFormat.CONSOLE:
        raise fail("--out goes with --format junit or --format markdown")
    if github and report_format is not ReportFormat.MARKDOWN:
        raise fail("--github goes with --format markdown")


def _write(path: Path, text: str) -> None:
    from veracity.store import write_text_atomic

    try:
        write_text_atomic(path, [text])
    except OSError as exc:
        raise cannot_write(path, exc) from exc
    err_console.print(f"report: {path}", highlight=False, markup=False)


def append_step_summary(text: str) -> None:
    target = os.environ.get(STEP_SUMMARY)
    if not target:
        err_console.print(
            f"note: ${STEP_SUMMARY} is not set (not in a GitHub Actions step): nothing appended",
            style="yellow",
            highlight=False,
            markup=False,
        )
        return
    path = Path(target)
    try:
        with path.open("a", encoding="utf-8") as handle:
            handle.write(text + "\n")
    except OSError as exc:
        raise cannot_write(path, exc) from exc


def write_format(
    run: RunData, report_format: ReportFormat, out: Path | None, *, github: bool
) -> None:
    """Print (or write to ``out``) ``run`` as JUnit XML or Markdown."""
    from veracity.report.junit import junit_xml
    from veracity.report.markdown import github_annotations, markdown_summary
    from veracity.store import ResultsFileError

    if report_format is ReportFormat.JUNIT:
        if not run.thresholds:
            raise fail(
                "no metric of this run has a threshold, so there is no test case to write: "
                "give one with --threshold metric=value"
            )
        try:
            text = junit_xml(run).decode("utf-8")
        except ResultsFileError as exc:  # a damaged line, named by file and number
            raise fail(str(exc)) from exc
    else:
        title = "veracity" if run.run_dir is None else f"veracity: {run.run_dir.name}"
        text = markdown_summary(run, title)
    if out is not None:
        _write(out, text)
    else:
        typer.echo(text, nl=False)
    if github:
        append_step_summary(text)
        for line in github_annotations(run):
            typer.echo(line)
