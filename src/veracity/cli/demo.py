"""``veracity demo``: the bundled example, end to end, with no key and no network."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.resources import as_file, files
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from veracity.cli.common import err_console, fail, interrupted, out_console

if TYPE_CHECKING:
    from veracity.embeddings import Embedder
    from veracity.judges import Judge

DEMO_METRICS = (
    "faithfulness",
    "context_precision",
    "context_recall",
    "answer_relevance",
    "ragas_score",
    "answer_classification",
)


def demo(
    out: Annotated[Path, typer.Option(help="Run directory to write.")] = Path("runs/demo"),
    decisions: Annotated[
        bool,
        typer.Option(
            "--decisions",
            help="Judge with a decision model (System One) instead of a chat model: the "
            "fake decision server on loopback, claims by offline sentence segmentation.",
        ),
    ] = False,
) -> None:
    """Run the bundled example dataset end to end, with no API key and no network.

    The judge is veracity's fake OpenAI-compatible server on loopback (with --decisions,
    its fake System One decision server), whose verdicts come from word overlap: the run
    shows the pipeline, files and reports, not a real judgement.
    """
    from veracity.config import RunConfig
    from veracity.evaluation import aevaluate
    from veracity.metrics import resolve_metrics
    from veracity.report import print_summary
    from veracity.store import RunDirectoryError

    what = "fake decision server (System One)" if decisions else "fake LLM server"
    err_console.print(
        f"[bold]demo:[/] judging with veracity's rule-based {what} on 127.0.0.1 "
        "(word overlap, not a real model)",
        highlight=False,
    )
    example = files("veracity") / "examples" / "rag_sample.jsonl"
    with as_file(example) as dataset, _fake_judge(decisions) as (judge, embedder):
        metrics = resolve_metrics(DEMO_METRICS)
        try:
            result = asyncio.run(
                aevaluate(
                    dataset,
                    metrics,
                    judge,
                    config=RunConfig(embedder=embedder or "none", cache=False),
                    out=out,
                )
            )
        except KeyboardInterrupt as exc:
            raise interrupted(out) from exc
        except RunDirectoryError as exc:
            raise fail(str(exc)) from exc
    print_summary(result.summary, out_console, judge=result.manifest["judge"])
    out_console.print(f"run directory: {out}", highlight=False)


@contextmanager
def _fake_judge(decisions: bool) -> Iterator[tuple[Judge, Embedder | None]]:
    """A judge over one of veracity's fake servers on loopback, and the embedder it uses."""
    if decisions:
        from veracity.decisions import SystemOne
        from veracity.judges.decision import DecisionJudge
        from veracity.testing import FakeDecisionServer

        with FakeDecisionServer() as decision_server:
            # A decision judge writes no questions: answer relevance is rated directly.
            yield DecisionJudge(SystemOne("fake-decider", base_url=decision_server.base_url)), None
        return
    from veracity.chat import OpenAIChat
    from veracity.embeddings import OpenAIEmbedder
    from veracity.judges import LLMJudge
    from veracity.testing import FakeLLMServer

    with FakeLLMServer() as server:
        judge = LLMJudge(OpenAIChat("rule-based-fake", base_url=server.base_url, api_key="demo"))
        yield judge, OpenAIEmbedder("hashed-fake", base_url=server.base_url, api_key="demo")
