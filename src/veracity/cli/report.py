"""``veracity report`` and ``veracity compare``."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from veracity.cli.common import (
    cannot_write,
    err_console,
    fail,
    html_option,
    html_target,
    out_console,
    writing_stdout,
)
from veracity.cli.report_formats import (
    FormatOption,
    GithubOption,
    OutOption,
    ReportFormat,
    ThresholdOption,
    check_options,
    write_format,
)
from veracity.report.terminal import visible
from veracity.store.layout import RESULTS

if TYPE_CHECKING:  # the report stack loads when a command runs, not for --help
    from veracity.report.compare import Comparison

HTML_MODULE = "veracity.report.html"


def _html_writer() -> Any:
    """``write_report`` of the HTML module, imported only when asked for; ``None`` when this
    installation has no HTML report."""
    try:
        module = importlib.import_module(HTML_MODULE)
    except ModuleNotFoundError as exc:
        if exc.name == HTML_MODULE:
            return None
        raise
    return getattr(module, "write_report", None)


def report(
    run_dir: Annotated[Path, typer.Argument(help="A run directory (written by veracity run).")],
    html: Annotated[
        str | None, html_option("the HTML report (self-contained)", "report.html in the run")
    ] = None,
    report_format: FormatOption = ReportFormat.CONSOLE,
    out: OutOption = None,
    threshold: ThresholdOption = None,
    github: GithubOption = False,
) -> None:
    """Print a run's summary: statistics per metric, system and question type, the failures
    by severity, the worst items with their failing claims, and recommendations; or the
    run as JUnit XML or Markdown for CI (exit 0 whatever the thresholds say)."""
    from veracity.report.console_report import print_report
    from veracity.report.load import unfinished
    from veracity.report.run_data import load_run
    from veracity.report.thresholds import parse_thresholds
    from veracity.store import ResultsFileError

    check_options(report_format, out, github)
    try:
        run = load_run(run_dir, parse_thresholds(threshold or []))
    except ValueError as exc:  # a run that cannot be read (ReportError), a bad --threshold
        raise fail(str(exc)) from exc
    summary, rebuilt = run.summary, run.rebuilt
    page = html_target(html, run_dir / "report.html")
    write_report = _html_writer() if page is not None else None
    if page is not None and write_report is None:
        raise fail("--html is not available in this version")
    note = unfinished(run_dir)
    if note is not None:
        err_console.print(f"note: {visible(note)}", style="yellow", markup=False, highlight=False)
    if not summary.get("results"):
        raise fail(f"the run in {run_dir} holds no result: there is nothing to report")
    if rebuilt:
        err_console.print(f"summary rebuilt from {RESULTS} (not written)", highlight=False)
    with writing_stdout():
        if report_format is ReportFormat.CONSOLE:
            print_report(summary, out_console, judge=run.judge)
        else:
            write_format(run, report_format, out, github=github)
    if write_report is not None and page is not None:
        try:
            written = write_report(run_dir, page)
        except ResultsFileError as exc:  # names the file and the line
            raise fail(str(exc)) from exc
        except OSError as exc:
            raise cannot_write(page, exc) from exc
        with writing_stdout():
            out_console.print(f"report: {visible(written or page)}", highlight=False)


def compare(
    run_a: Annotated[Path, typer.Argument(help="Run A, the baseline (or the run of --systems).")],
    run_b: Annotated[Path | None, typer.Argument(help="Run B, compared against A.")] = None,
    systems: Annotated[
        str | None, typer.Option(help="A,B: compare system B against system A inside RUN_A.")
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Also write the comparison to this JSON file.")
    ] = None,
    html: Annotated[
        str | None,
        html_option(
            "the comparison as a self-contained page (a chart of the differences and their "
            "CIs, p-values, pair counts, the most regressed items)",
            "comparison.html",
        ),
    ] = None,
    top: Annotated[int, typer.Option(min=0, help="Regressed items shown per metric.")] = 10,
) -> None:
    """Paired per-metric differences B − A with a 95 % CI and a p-value, and the items
    that regressed most. Results pair on sample id, metric and iteration."""
    from veracity.report.compare import CompareError
    from veracity.report.console_compare import print_comparison
    from veracity.report.html_compare import write_comparison
    from veracity.store import write_json_atomic

    if (run_b is None) == (systems is None):
        raise fail("give two run directories, or one run and --systems A,B")
    for path in (run_a, run_b):
        if path is not None and not (path / RESULTS).is_file():
            raise fail(f"not a run directory (no {RESULTS}): {path}")
    try:
        comparison = _compare(run_a, run_b, systems, top)
    except (CompareError, ValueError) as exc:
        raise fail(str(exc)) from exc
    with writing_stdout():
        print_comparison(comparison, out_console)
    if json_out is not None:
        try:
            write_json_atomic(json_out, comparison.as_dict())
        except OSError as exc:
            raise cannot_write(json_out, exc) from exc
        with writing_stdout():
            out_console.print(f"comparison written to {visible(json_out)}", highlight=False)
    page = html_target(html, Path("comparison.html"))
    if page is not None:
        try:
            write_comparison(comparison, page)
        except OSError as exc:
            raise cannot_write(page, exc) from exc
        with writing_stdout():
            out_console.print(f"comparison page: {visible(page)}", highlight=False)


def _compare(run_a: Path, run_b: Path | None, systems: str | None, top: int) -> Comparison:
    from veracity.report.compare import CompareError, compare_runs, compare_systems

    if run_b is not None:
        return compare_runs(run_a, run_b, top=top)
    names = [name.strip() for name in (systems or "").split(",")]
    if len(names) != 2 or not all(names) or names[0] == names[1]:
        raise CompareError(f"--systems needs two different names, A,B (got {systems!r})")
    return compare_systems(run_a, names[0], names[1], top=top)
