"""``veracity demo``: the bundled example, end to end, with no key and no network."""

from __future__ import annotations

import asyncio
from importlib.resources import as_file, files
from pathlib import Path
from typing import Annotated

import typer

from veracity.cli.common import err_console, fail, interrupted, out_console

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
) -> None:
    """Run the bundled example dataset end to end, with no API key and no network.

    The judge is veracity's fake OpenAI-compatible server on loopback, whose verdicts come
    from word overlap: the run shows the pipeline, files and reports, not a real judgement.
    """
    from veracity.chat import OpenAIChat
    from veracity.embeddings import OpenAIEmbedder
    from veracity.evaluation import aevaluate
    from veracity.judges import LLMJudge
    from veracity.metrics import resolve_metrics
    from veracity.report import print_summary
    from veracity.store import RunDirectoryError
    from veracity.testing import FakeLLMServer

    err_console.print(
        "[bold]demo:[/] judging with veracity's rule-based fake LLM server on 127.0.0.1 "
        "(word overlap, not a real model)",
        highlight=False,
    )
    example = files("veracity") / "examples" / "rag_sample.jsonl"
    with as_file(example) as dataset, FakeLLMServer() as server:
        judge = LLMJudge(OpenAIChat("rule-based-fake", base_url=server.base_url, api_key="demo"))
        embedder = OpenAIEmbedder("hashed-fake", base_url=server.base_url, api_key="demo")
        metrics = resolve_metrics(DEMO_METRICS)
        try:
            result = asyncio.run(
                aevaluate(dataset, metrics, judge, out=out, embedder=embedder, cache=False)
            )
        except KeyboardInterrupt as exc:
            raise interrupted(out) from exc
        except RunDirectoryError as exc:
            raise fail(str(exc)) from exc
    print_summary(result.summary, out_console, judge=result.manifest["judge"])
    out_console.print(f"run directory: {out}", highlight=False)
