"""The ``veracity`` command line."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from veracity._version import __version__
from veracity.config import ConfigError, load_config
from veracity.dataset import DatasetError, RowError, read_dataset
from veracity.embeddings import MissingLocalModelError, ModelIntegrityError
from veracity.evaluation import aevaluate
from veracity.judges import JudgeFatalError, JudgeSpecError, default_judge_spec, make_judge
from veracity.judges.chat.base import StructuredOutput
from veracity.metrics import UnknownMetricError, resolve_metrics
from veracity.report import check_thresholds, parse_thresholds, print_summary
from veracity.store import RunDirectoryError

EXIT_OK, EXIT_THRESHOLD, EXIT_USAGE = 0, 1, 2
DEMO_METRICS = (
    "faithfulness",
    "context_precision",
    "context_recall",
    "answer_relevance",
    "ragas_score",
    "answer_classification",
)

app = typer.Typer(
    name="veracity",
    help="Evaluate Retrieval-Augmented-Generation systems.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
out_console = Console()
# soft_wrap: messages keep their lines whole, so paths and file:line stay greppable.
err_console = Console(stderr=True, soft_wrap=True)


def _fail(message: str) -> typer.Exit:
    err_console.print(f"[bold red]error:[/] {message}", highlight=False)
    return typer.Exit(EXIT_USAGE)


def _strict_check(dataset: Path) -> None:
    """``--strict``: any bad row fails the run before a single judge call."""
    errors: list[RowError] = [row for row in read_dataset(dataset) if isinstance(row, RowError)]
    if errors:
        for error in errors[:20]:
            err_console.print(f"  {error}", highlight=False)
        if len(errors) > 20:
            err_console.print(f"  … and {len(errors) - 20} more", highlight=False)
        raise _fail(f"--strict: {len(errors)} bad row(s) in {dataset}; no judge call was made")


@app.command()
def run(
    dataset: Annotated[Path, typer.Argument(help="JSONL, JSON or CSV file of samples.")],
    metrics: Annotated[str, typer.Option(help="Comma-separated metric names.")] = "faithfulness",
    judge: Annotated[
        str | None,
        typer.Option(help="offline, openai/MODEL or anthropic/MODEL (default: from environment)."),
    ] = None,
    base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible base URL (or OPENAI_BASE_URL).")
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Run directory to write.")] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Judge calls in flight at once.")] = 16,
    iterations: Annotated[int, typer.Option(min=1, help="Judge every sample N times.")] = 1,
    timeout: Annotated[float, typer.Option(min=0.1, help="Seconds per judge call.")] = 60.0,
    structured_output: Annotated[
        str, typer.Option(help="json_schema, json_object or text.")
    ] = "json_schema",
    strict: Annotated[bool, typer.Option(help="Fail on any bad row before judging.")] = False,
    threshold: Annotated[
        list[str] | None, typer.Option(help="metric=value; exit 1 when a mean is below it.")
    ] = None,
    embedder: Annotated[
        str,
        typer.Option(help="auto, local, local:DIR, openai/MODEL or none (for embeddings)."),
    ] = "auto",
    bert_model: Annotated[
        str, typer.Option(help="BERTScore model: auto, local or local:DIR (a model folder).")
    ] = "auto",
    config: Annotated[
        Path | None,
        typer.Option(help="Config file (default: ./veracity.yaml or pyproject's [tool.veracity])."),
    ] = None,
) -> None:
    """Evaluate a dataset and write a run directory.

    Metrics: faithfulness, context_precision, context_recall, answer_relevance,
    ragas_score, factual_accuracy, semantic_similarity, bert_score,
    answer_classification, rubric, and rubric:NAME for a rubric of the config file.
    """
    if not dataset.is_file():
        raise _fail(f"dataset not found: {dataset}")
    if structured_output not in ("json_schema", "json_object", "text"):
        raise _fail("--structured-output must be json_schema, json_object or text")
    mode: StructuredOutput = structured_output  # type: ignore[assignment]
    try:
        settings = load_config(config)
        chosen = resolve_metrics(metrics.split(","), settings.rubrics)
        gates = parse_thresholds(threshold or [])
        the_judge = make_judge(
            judge or default_judge_spec(),
            base_url=base_url,
            concurrency=concurrency,
            timeout_s=timeout,
            structured_output=mode,
        )
    except (UnknownMetricError, JudgeSpecError, ConfigError, ValueError) as exc:
        raise _fail(str(exc)) from exc
    run_dir = out or Path("runs") / dataset.stem
    try:
        if strict:
            _strict_check(dataset)
        result = asyncio.run(
            aevaluate(
                dataset,
                chosen,
                the_judge,
                out=run_dir,
                iterations=iterations,
                embedder=None if embedder == "none" else embedder,
                bert_scorer=bert_model,
                base_url=base_url,
                keep_results=False,
                settings={"concurrency": concurrency, "timeout_s": timeout, "strict": strict},
            )
        )
    except (DatasetError, RunDirectoryError, MissingLocalModelError, ModelIntegrityError) as exc:
        raise _fail(str(exc)) from exc
    except JudgeFatalError as exc:
        raise _fail(f"the judge cannot work: {exc} (results so far are in {run_dir})") from exc

    for bad in result.bad_rows[:20]:
        err_console.print(f"[yellow]bad row[/] {bad}", highlight=False)
    if len(result.bad_rows) > 20:
        err_console.print(f"… and {len(result.bad_rows) - 20} more bad rows", highlight=False)
    print_summary(result.summary, out_console)
    out_console.print(f"run directory: {run_dir}", highlight=False)
    checks = check_thresholds(result.summary, gates)
    for check in checks:
        out_console.print(str(check), style="green" if check.met else "bold red", highlight=False)
    if not all(check.met for check in checks):
        raise typer.Exit(EXIT_THRESHOLD)


@app.command()
def demo(
    out: Annotated[Path, typer.Option(help="Run directory to write.")] = Path("runs/demo"),
) -> None:
    """Run the bundled example dataset end to end, with no API key and no network.

    The judge is veracity's fake OpenAI-compatible server on loopback, whose verdicts come
    from word overlap: the run shows the pipeline, files and reports, not a real judgement.
    """
    from importlib.resources import as_file, files

    from veracity.embeddings import OpenAIEmbedder
    from veracity.judges import LLMJudge
    from veracity.judges.chat import OpenAIChat
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
            result = asyncio.run(aevaluate(dataset, metrics, judge, out=out, embedder=embedder))
        except RunDirectoryError as exc:
            raise _fail(str(exc)) from exc
    print_summary(result.summary, out_console)
    out_console.print(f"run directory: {out}", highlight=False)


@app.command()
def version() -> None:
    """Print veracity's version."""
    out_console.print(__version__)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        err_console.print("interrupted; results written so far are kept")
        sys.exit(130)
