"""``veracity send``: a run's results back where its samples came from."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from veracity._suggest import one_of
from veracity.cli.common import fail, out_console
from veracity.store.layout import RESULTS

DEFAULT_URL = {"phoenix": "http://localhost:6006", "langfuse": "https://cloud.langfuse.com"}


def send(
    run_dir: Annotated[
        Path, typer.Argument(help="A run directory whose samples came from traces (--from).")
    ],
    to: Annotated[
        str,
        typer.Option(
            "--to",
            help="phoenix: annotations of the spans evaluated; langfuse: scores of the traces "
            "evaluated (keys in LANGFUSE_PUBLIC_KEY, LANGFUSE_SECRET_KEY).",
        ),
    ] = "phoenix",
    url: Annotated[
        str | None,
        typer.Option(
            help="Where to send: the server's base URL (default: Phoenix on localhost:6006; "
            "Langfuse at $LANGFUSE_BASE_URL or $LANGFUSE_HOST, else Langfuse Cloud)."
        ),
    ] = None,
) -> None:
    """Send a run's results back where its samples came from: to Arize Phoenix as
    annotations of the spans they evaluate, to Langfuse as scores of the traces (sending
    again replaces them)."""
    try:
        target = one_of(to, ("phoenix", "langfuse"), "--to")
    except ValueError as exc:
        raise fail(str(exc)) from exc
    if not (run_dir / RESULTS).is_file():
        raise fail(f"not a run directory (no {RESULTS}): {run_dir}")
    env_url = os.environ.get("LANGFUSE_BASE_URL") or os.environ.get("LANGFUSE_HOST")
    where = url or (env_url if target == "langfuse" and env_url else DEFAULT_URL[target])
    if target == "langfuse":
        _to_langfuse(run_dir, where)
    else:
        _to_phoenix(run_dir, where)


def _to_phoenix(run_dir: Path, url: str) -> None:
    from veracity.report.load import ReportError

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
        _nothing(run_dir)


def _to_langfuse(run_dir: Path, url: str) -> None:
    from veracity.integrations.langfuse import send_to_langfuse
    from veracity.report.load import ReportError
    from veracity.traces import TraceFileError

    try:
        sent = send_to_langfuse(run_dir, url)
    except (ReportError, TraceFileError) as exc:
        raise fail(str(exc)) from exc
    if not (sent.accepted or sent.unscored or sent.rejected):
        _nothing(run_dir)
        return
    out_console.print(f"sent {sent.accepted} score(s) to {url}", highlight=False)
    if sent.unscored:
        out_console.print(
            f"not sent: {sent.unscored} unscored result(s) (no number to send; their status "
            f"is in {run_dir / RESULTS})",
            highlight=False,
        )
    if sent.rejected:
        raise fail(
            f"Langfuse rejected {sent.rejected} score(s): {'; '.join(sent.errors)} (sending "
            "again updates the scores it holds, never duplicates them)"
        )


def _nothing(run_dir: Path) -> None:
    out_console.print(
        f"nothing to send: no result in {run_dir} is of a sample read from a trace",
        highlight=False,
    )
