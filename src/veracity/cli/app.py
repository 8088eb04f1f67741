"""The ``veracity`` command line."""

from __future__ import annotations

import sys
import warnings
from typing import TextIO

import typer
from rich.markup import escape

from veracity._version import __version__
from veracity.cli.agree import agree, calibrate
from veracity.cli.cache import cache_app
from veracity.cli.common import (
    EXIT_INTERNAL,
    Command,
    Group,
    MetricsCommand,
    err_console,
    out_console,
)
from veracity.cli.crash import crash_line
from veracity.cli.demo import demo
from veracity.cli.export import export
from veracity.cli.label import label
from veracity.cli.report import compare, report
from veracity.cli.run import estimate, run
from veracity.cli.send import send
from veracity.cli.testset import testset_app
from veracity.report.terminal import visible, visible_lines

app = typer.Typer(
    cls=Group,
    name="veracity",
    help="Evaluate Retrieval-Augmented-Generation systems.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        out_console.print(__version__)
        raise typer.Exit


@app.callback()
def _options(
    show_version: bool = typer.Option(
        False,
        "--version",
        help="Print veracity's version and exit.",
        callback=_print_version,
        is_eager=True,
    ),
) -> None:
    """Evaluate Retrieval-Augmented-Generation systems."""


app.command(cls=MetricsCommand)(run)
app.command(cls=MetricsCommand)(estimate)
# One line each in the command list (the docstrings, wrapped for the code, would keep
# their line breaks there; demo's is one line already).
for command, short_help in (
    (report, "Print a run's summary, or write it as JUnit XML or Markdown."),
    (compare, "Compare two runs: paired differences with a CI and a p-value."),
    (agree, "How far a run agrees with people's labels (AUROC, κ, Brier…)."),
    (calibrate, "Fit a run's scores to people's labels; --calibration applies it."),
    (label, "Label a run's answers in a review page, for agree and calibrate."),
    (demo, None),
    (export, "Write a run's results as a flat table (CSV, Parquet, JSONL)."),
    (send, "Send a run's results back where its samples came from: Phoenix, Langfuse, OTLP."),
):
    app.command(cls=Command, short_help=short_help)(command)
app.add_typer(testset_app, name="testset")
app.add_typer(cache_app, name="cache")


@app.command(cls=Command)
def version() -> None:
    """Print veracity's version."""
    out_console.print(__version__)


_python_showwarning = warnings.showwarning


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """veracity's own warnings (a damaged cache set aside, say) as one line for the user;
    other libraries' as Python shows them."""
    if category.__module__.startswith("veracity."):
        text = escape(visible_lines(str(message)))
        err_console.print(f"[yellow]warning:[/] {text}", highlight=False)
    else:
        _python_showwarning(message, category, filename, lineno, file, line)


def main() -> None:
    warnings.showwarning = _show_warning
    # Ctrl-C is handled by the commands that run (typer exits 130 before it gets here), and
    # typer's own exits (usage errors, typer.Exit) are SystemExit, not caught here.
    try:
        app()
    except Exception as exc:  # a bug: one line here, the traceback in a file, exit 4
        line = crash_line(exc, ["veracity", *sys.argv[1:]])
        err_console.print(f"[bold red]error:[/] {escape(visible(line))}", highlight=False)
        sys.exit(EXIT_INTERNAL)
