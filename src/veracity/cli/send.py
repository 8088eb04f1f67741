"""``veracity send``: a run's results back where its samples came from."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from veracity._suggest import one_of
from veracity.cli.common import fail, out_console
from veracity.store.layout import RESULTS


def send(
    run_dir: Annotated[
        Path, typer.Argument(help="A run directory whose samples came from traces (--from).")
    ],
    to: Annotated[
        str, typer.Option("--to", help="phoenix: annotations of the spans evaluated.")
    ] = "phoenix",
    url: Annotated[str, typer.Option(help="Where to send: Phoenix's base URL.")] = (
        "http://localhost:6006"
    ),
) -> None:
    """Send a run's results back where its samples came from: to Arize Phoenix as
    annotations of the spans they evaluate (sending again replaces them)."""
    from veracity.report.load import ReportError

    try:
        one_of(to, ("phoenix",), "--to")
    except ValueError as exc:
        raise fail(str(exc)) from exc
    if not (run_dir / RESULTS).is_file():
        raise fail(f"not a run directory (no {RESULTS}): {run_dir}")
    try:
        from veracity.integrations.phoenix import send_to_phoenix

        sent = send_to_phoenix(run_dir, url)
    except ImportError as exc:
        raise fail("sending to Phoenix needs its client: pip install 'veracity[phoenix]'") from exc
    except ReportError as exc:
        raise fail(str(exc)) from exc
    except Exception as exc:  # the client raises httpx's errors and its own
        raise fail(f"Phoenix at {url}: {exc}") from exc
    if sent:
        out_console.print(f"sent {sent} annotation(s) to {url}", highlight=False)
    else:
        out_console.print(
            f"nothing to send: no result in {run_dir} is of a sample read from a trace",
            highlight=False,
        )
