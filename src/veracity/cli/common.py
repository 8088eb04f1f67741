"""What the commands share: consoles, failing with exit code 2, the config file's flag."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from veracity.report.terminal import visible_lines

EXIT_OK, EXIT_THRESHOLD, EXIT_USAGE, EXIT_JUDGE_ERRORS = 0, 1, 2, 3
# A bug (an error no command handles): never 1, which CI reads as a quality gate.
EXIT_INTERNAL = 4
# 128 + SIGINT, as a shell reports a process stopped by Ctrl-C.
EXIT_INTERRUPTED = 130


class _StdoutConsole(Console):
    """stdout's console: inside :func:`writing_stdout` a reader that stopped early is left
    to it (rich itself would exit 1 without a word)."""

    guarded = False

    def on_broken_pipe(self) -> None:
        if self.guarded:
            self.quiet = True
            raise BrokenPipeError
        super().on_broken_pipe()


out_console = _StdoutConsole()
# soft_wrap: messages keep their lines whole, so paths and file:line stay greppable.
err_console = Console(stderr=True, soft_wrap=True)


def fail(message: str, code: int = EXIT_USAGE) -> typer.Exit:
    # Escaped: a message quoting a path or a value with [brackets] must print as it is,
    # and one quoting data must not send its control characters to the terminal.
    err_console.print(f"[bold red]error:[/] {escape(visible_lines(message))}", highlight=False)
    return typer.Exit(code)


def _stdout_to_devnull() -> None:
    # What is still buffered for stdout goes nowhere: Python would flush it at exit and
    # complain once more.
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


@contextmanager
def writing_stdout() -> Iterator[None]:
    """Output to stdout that may not take it: a reader that stopped early (``| head``) is
    not an error (exit 0, the rest unsaid); a full or failing stdout is (exit 2)."""
    out_console.guarded = True
    try:
        yield
        sys.stdout.flush()
    except BrokenPipeError:
        _stdout_to_devnull()
        raise typer.Exit(EXIT_OK) from None
    except OSError as exc:
        if exc.filename is not None:  # a file read or written on the way, not stdout
            raise
        _stdout_to_devnull()
        raise fail(f"cannot write to standard output: {exc.strerror or exc}") from exc
    finally:
        out_console.guarded = False


def cannot_write(path: Path, exc: OSError) -> typer.Exit:
    """A file the command writes that cannot be written (a full or read-only disk)."""
    return fail(f"cannot write {path}: {exc.strerror or exc}")


def interrupted(run_dir: Path) -> typer.Exit:
    """Ctrl-C during a run: say where the finished results are and how to go on."""
    err_console.print(
        f"interrupted; every result finished so far is kept in {run_dir} "
        "(run the same command again, or add --resume, to continue)",
        highlight=False,
        markup=False,
    )
    return typer.Exit(EXIT_INTERRUPTED)


def check_dataset(dataset: Path) -> None:
    """Fail unless ``dataset`` is a file (a folder is named as such, not as missing)."""
    if dataset.is_dir():
        raise fail(f"the dataset is a directory, not a file: {dataset}")
    if not dataset.is_file():
        raise fail(f"dataset not found: {dataset}")


ConfigOption = Annotated[
    Path | None,
    # The bracket is escaped: help text is rich markup, where [tool.veracity] is a tag.
    typer.Option(
        "--config",
        help="Config file (default ./veracity.yaml or \\[tool.veracity] in pyproject.toml).",
    ),
]
