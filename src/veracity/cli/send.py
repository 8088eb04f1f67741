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
AGAIN = "sending again replaces what it holds, never duplicates it"


def send(
    run_dir: Annotated[
        Path, typer.Argument(help="A run directory whose samples came from traces (--from).")
    ],
    to: Annotated[
        str,
        typer.Option(
            "--to",
            metavar="phoenix|langfuse|otlp",
            help="phoenix: annotations of the spans evaluated; langfuse: scores of the traces "
            "evaluated (keys in LANGFUSE_PUBLIC_KEY, LANGFUSE_SECRET_KEY); otlp: "
            "gen_ai.evaluation.result events linked to the spans evaluated, to an OTLP/HTTP "
            "endpoint or a file (OTLP JSON).",
        ),
    ] = "phoenix",
    url: Annotated[
        str | None,
        typer.Option(
            metavar="URL|FILE",
            help="Where to send: the server's base URL (default: Phoenix on localhost:6006; "
            "Langfuse at $LANGFUSE_BASE_URL or $LANGFUSE_HOST, else Langfuse Cloud); for "
            "otlp, an OTLP/HTTP endpoint (default: $OTEL_EXPORTER_OTLP_LOGS_ENDPOINT or "
            "$OTEL_EXPORTER_OTLP_ENDPOINT, else localhost:4318) or a file to write, anew "
            "each time.",
        ),
    ] = None,
    timeout: Annotated[
        float,
        typer.Option(
            metavar="SECONDS",
            help="Seconds each request may take in all, its reply included (a reply over "
            "32 MB, or a redirect to another host, is refused too).",
        ),
    ] = 60.0,
) -> None:
    """Send a run's results back where its samples came from: to Arize Phoenix as
    annotations of the spans they evaluate, to Langfuse as scores of the traces, over OTLP
    as events linked to the spans (sending again never duplicates them)."""
    from veracity.transport.limits import checked_timeout

    try:
        target = one_of(to, ("phoenix", "langfuse", "otlp"), "--to")
        checked_timeout(timeout)
    except ValueError as exc:
        raise fail(str(exc).replace("the timeout", "--timeout")) from exc
    if not (run_dir / RESULTS).is_file():
        raise fail(f"not a run directory (no {RESULTS}): {run_dir}")
    from veracity.integrations.sending import SendError
    from veracity.report.load import ReportError

    try:
        if target == "otlp":
            _to_otlp(run_dir, url, timeout)
            return
        env_url = os.environ.get("LANGFUSE_BASE_URL") or os.environ.get("LANGFUSE_HOST")
        where = url or (env_url if target == "langfuse" and env_url else DEFAULT_URL[target])
        if target == "langfuse":
            _to_langfuse(run_dir, where, timeout)
        else:
            _to_phoenix(run_dir, where, timeout)
    except (SendError, ReportError) as exc:
        raise fail(str(exc)) from None
    except ValueError as exc:  # a URL no request can go to
        raise fail(str(exc)) from None


def _to_phoenix(run_dir: Path, url: str, timeout_s: float) -> None:
    from veracity.integrations.phoenix import send_to_phoenix

    sent = send_to_phoenix(run_dir, url, timeout_s=timeout_s)
    if sent:
        out_console.print(f"sent {sent} annotation(s) to {url}", highlight=False)
    else:
        _nothing(run_dir)


def _to_langfuse(run_dir: Path, url: str, timeout_s: float) -> None:
    from veracity.integrations.langfuse import send_to_langfuse

    sent = send_to_langfuse(run_dir, url, timeout_s=timeout_s)
    if not (sent.sent or sent.unscored):
        _nothing(run_dir)
        return
    if sent.sent:
        out_console.print(
            f"sent {sent.sent} score(s) to {url}: {sent.accepted} accepted", highlight=False
        )
    if sent.unscored:
        out_console.print(
            f"not sent: {sent.unscored} unscored result(s) (no number to send; their status "
            f"is in {run_dir / RESULTS})",
            highlight=False,
        )
    if sent.rejected:
        raise fail(
            f"Langfuse rejected {sent.rejected} score(s): {'; '.join(sent.errors)} ({AGAIN})"
        )
    unanswered = sent.sent - sent.accepted - sent.rejected
    if unanswered > 0:
        raise fail(
            f"Langfuse at {url} took {sent.accepted} of the {sent.sent} score(s) sent and "
            f"rejected {sent.rejected}: its reply says nothing of the other {unanswered} "
            f"({AGAIN})"
        )


def _to_otlp(run_dir: Path, url: str | None, timeout_s: float) -> None:
    from veracity.integrations.otlp import is_url, otlp_destination, send_to_otlp

    where = otlp_destination(url)
    sent = send_to_otlp(run_dir, where, timeout_s=timeout_s)
    if not sent.events:
        out_console.print(f"nothing to send: {run_dir} has no result", highlight=False)
        return
    verb = "sent" if is_url(where) else "wrote"
    out_console.print(
        f"{verb} {sent.events} gen_ai.evaluation.result event(s) to {where}, {sent.linked} "
        "linked to the span they evaluate",
        highlight=False,
    )
    if sent.rejected:
        raise fail(
            f"the OTLP endpoint rejected {sent.rejected} event(s): {sent.message or 'no reason'}"
            " (each event carries a stable veracity.result_id: sending again repeats, never "
            "adds, a result)"
        )


def _nothing(run_dir: Path) -> None:
    out_console.print(
        f"nothing to send: no result in {run_dir} is of a sample read from a trace",
        highlight=False,
    )
