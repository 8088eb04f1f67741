"""``veracity export``: a run's results as a flat CSV, JSON Lines or Parquet file."""

from __future__ import annotations

import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Annotated

import typer

from veracity._suggest import one_of
from veracity.cli.common import cannot_write, err_console, fail, out_console, writing_stdout
from veracity.report.terminal import visible
from veracity.store.layout import RESULTS


def export(
    run_dir: Annotated[Path, typer.Argument(help="A run directory (written by veracity run).")],
    fmt: Annotated[
        str, typer.Option("--format", help="csv, jsonl or parquet (parquet needs pyarrow).")
    ] = "csv",
    out: Annotated[
        Path | None,
        typer.Option(help="The file to write (default RUN_DIR/results.flat.FORMAT; - for stdout)."),
    ] = None,
    raw_cells: Annotated[
        bool,
        typer.Option(
            "--raw-cells",
            help="CSV: write text cells exactly (by default one starting with = + - @, a "
            "tab or CR gets a leading ' so a spreadsheet does not run it as a formula).",
        ),
    ] = False,
) -> None:
    """Write a run's results as a flat table: one row per sample, system, metric and
    iteration, with score, status, reason, cost, latency and token counts, and the
    details as JSON text."""
    from veracity.report.export import FORMATS, ExportError, write_export
    from veracity.report.load import unfinished
    from veracity.store import ResultsFileError, read_results

    try:
        one_of(fmt, FORMATS, "--format")
    except ValueError as exc:
        raise fail(str(exc)) from exc
    source = run_dir / RESULTS
    if not source.is_file():
        raise fail(f"not a run directory (no {RESULTS}): {run_dir}")
    target = out or run_dir / f"results.flat.{fmt}"
    if str(target) != "-" and target.resolve() == source.resolve():
        raise fail(f"--out would overwrite the run's own {RESULTS}: choose another file")
    note = unfinished(run_dir)
    if note is not None:
        err_console.print(f"note: {visible(note)}", style="yellow", markup=False, highlight=False)
    to_stdout = str(target) == "-"
    try:
        with writing_stdout() if to_stdout else nullcontext():
            rows = write_export(
                read_results(run_dir),
                fmt,
                sys.stdout if to_stdout else target,
                raw_cells=raw_cells,
            )
    except (ExportError, ResultsFileError) as exc:  # a results line is named by number
        raise fail(str(exc)) from exc
    except OSError as exc:
        if exc.filename == str(source):
            raise fail(f"cannot read {source}: {exc.strerror or exc}") from exc
        raise cannot_write(target, exc) from exc
    if not to_stdout:
        out_console.print(f"exported {rows} result(s) to {visible(target)}", highlight=False)
