"""The ``veracity`` command line."""

from __future__ import annotations

import typer

from veracity._version import __version__
from veracity.cli.common import out_console
from veracity.cli.demo import demo
from veracity.cli.report import compare, report
from veracity.cli.run import estimate, run
from veracity.cli.testset import testset_app

app = typer.Typer(
    name="veracity",
    help="Evaluate Retrieval-Augmented-Generation systems.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command()(run)
app.command()(estimate)
app.command()(report)
app.command()(compare)
app.command()(demo)
app.add_typer(testset_app, name="testset")


@app.command()
def version() -> None:
    """Print veracity's version."""
    out_console.print(__version__)


def main() -> None:
    # Ctrl-C is handled by the commands that run (typer would exit 130 before it got here).
    app()
