"""What the commands share: consoles, failing with exit code 2, the config file's flag."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperCommand, TyperGroup, TyperOption

from veracity.report.terminal import visible_lines

if TYPE_CHECKING:  # typer's own click, which its commands are built on
    from typer._click import Context, HelpFormatter

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


# Options whose value may be left out: ``--html`` alone writes the command's default file.
_OPTIONAL_VALUE = ("--html",)


def _value_given(args: list[str], at: int) -> bool:
    """Whether the token after ``args[at]`` is the option's value: there is one and it is
    not the next option (``-`` alone is a value, as for click's optional values)."""
    following = args[at + 1] if at + 1 < len(args) else None
    return following is not None and not (following.startswith("-") and len(following) > 1)


class _FlagsWithoutType:
    """A help without a type beside an on/off flag (``<bool>`` says nothing there)."""

    params: list[Any]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            _no_flag_type(param)

    def get_help_option(self, ctx: Context) -> Any:
        option = super().get_help_option(ctx)  # type: ignore[misc]
        _no_flag_type(option)
        return option


class Command(_FlagsWithoutType, TyperCommand):
    """Every veracity command: ``--html [PATH]``, an option whose value may be left out,
    and no ``<bool>`` in its help.

    typer's parser has no optional values (click's ``is_flag=False, flag_value=…`` is not
    passed on), so ``--html`` with no value is read as ``--html=`` (an empty value: the
    command's default file)."""

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        given: list[str] = []
        for at, arg in enumerate(args):
            if arg == "--":  # what follows is positional
                given += args[at:]
                break
            given.append(
                f"{arg}=" if arg in _OPTIONAL_VALUE and not _value_given(args, at) else arg
            )
        return super().parse_args(ctx, given)


class Group(_FlagsWithoutType, TyperGroup):
    """veracity and its groups of commands (testset, cache): a help without ``<bool>``."""


def _no_flag_type(param: object) -> None:
    if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
        param.metavar = ""


class MetricsCommand(Command):
    """``run`` and ``estimate``: their help ends with the metrics of the registry, loaded
    for the help only (a command must start without the metrics' modules)."""

    def format_help(self, ctx: Context, formatter: HelpFormatter) -> None:
        from veracity.metrics.registry import METRICS

        given = self.help
        self.help = (
            f"{given or ''}\n\nMetrics (--metrics): {', '.join(METRICS)}, and rubric:NAME for "
            "a rubric of the config file."
        )
        try:
            super().format_help(ctx, formatter)
        finally:
            self.help = given


def html_option(what: str, default: str) -> Any:
    """``--html [PATH]``: the option of every command that writes an HTML page."""
    return typer.Option(
        "--html",
        metavar="[PATH]",
        help=f"Also write {what}: --html alone to {default}, --html PATH to that file (or "
        "folder). After the positional arguments: --html RUN reads RUN as the page's path.",
    )


def html_target(given: str | None, default: Path) -> Path | None:
    """Where ``--html`` writes: nowhere (not given), ``default`` (no value), the file given,
    or ``default``'s name inside a folder given."""
    if given is None:
        return None
    if not given:
        return default
    path = Path(given)
    return path / default.name if path.is_dir() else path
