"""``veracity testset``: build a test set from query logs, or generate one from documents."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from veracity.cli.common import Command, Group, err_console, fail, out_console
from veracity.cli.settings import run_settings
from veracity.config.model import RunConfig
from veracity.testset.defaults import (
    DEFAULT_CHUNK_CHARS,
    DEFAULT_MAX_CHARS,
    DEFAULT_MIN_SUPPORT,
    DEFAULT_PER_CALL,
)

if TYPE_CHECKING:  # the judges and the generator load when a command runs, not for --help
    from veracity.judges import LLMJudge
    from veracity.testset.from_logs import FromLogsReport
    from veracity.testset.generate import GenerateReport, GenerateResult

MAX_SHOWN = 20

testset_app = typer.Typer(
    cls=Group,
    name="testset",
    help="Build a test set: sample it from query logs, or generate it from documents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _say(text: str) -> None:
    out_console.print(text, highlight=False, soft_wrap=True)


def _warn(text: str) -> None:
    err_console.print(f"[yellow]{text}[/]", highlight=False, soft_wrap=True)


def _show(lines: Sequence[object], total: int, what: str) -> None:
    for line in lines[:MAX_SHOWN]:
        err_console.print(f"[yellow]{what}[/] {line}", highlight=False, soft_wrap=True)
    if total > min(len(lines), MAX_SHOWN):
        err_console.print(f"… and {total - min(len(lines), MAX_SHOWN)} more", highlight=False)


def _counts(counts: Mapping[str, int]) -> str:
    parts = [f"{name} {n:,}" for name, n in counts.items() if n]
    return f"  ({', '.join(parts)})" if parts else ""


def _print_logs_report(report: FromLogsReport) -> None:
    _say(f"from-logs: {report.path}")
    _say(f"  {'rows read':<11}{report.rows:>8,}")
    _say(f"  {'bad rows':<11}{report.bad_rows:>8,}")
    _say(f"  {'duplicates':<11}{report.duplicates:>8,}")
    _say(f"  {'filtered':<11}{sum(report.filtered.values()):>8,}{_counts(report.filtered)}")
    _say(f"  {'eligible':<11}{report.eligible:>8,}")
    drawn = f" (sample {report.sample}, seed {report.seed})" if report.sample else ""
    _say(f"  {'written':<11}{report.written:>8,} -> {report.out}{drawn}")
    if report.stratify:
        strata = ", ".join(
            f"{name} {count.written:,} of {count.eligible:,}"
            for name, count in sorted(report.strata.items())
        )
        _say(f"  strata by {report.stratify}: {strata or 'none'}")


@testset_app.command("from-logs", cls=Command)
def from_logs(
    logs: Annotated[Path, typer.Argument(help="Query log: JSONL, JSON or CSV.")],
    out: Annotated[Path, typer.Option(help="The test set to write (JSONL).")],
    sample: Annotated[
        int | None, typer.Option(min=1, help="Draw N rows (default: every eligible row).")
    ] = None,
    stratify: Annotated[
        str | None,
        typer.Option(help="Draw proportionally by question_type, system or a metadata key."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the draw: same seed, same test set.")] = 0,
    max_chars: Annotated[
        int, typer.Option(min=1, help="Drop rows whose question+answer+contexts are longer.")
    ] = DEFAULT_MAX_CHARS,
) -> None:
    """Turn production query logs into a test set.

    Rows are de-duplicated by their normalised question, filtered (empty question or
    answer, longer than --max-chars), sampled reproducibly (--sample, --seed) and, when
    asked, stratified (--stratify). Bad, duplicate and filtered rows are counted and shown
    with their line.
    """
    from veracity.dataset import DatasetError
    from veracity.testset.from_logs import logs_to_testset

    if out.exists() and logs.exists() and out.resolve() == logs.resolve():
        raise fail("--out must not be the log file itself")
    try:
        report = logs_to_testset(
            logs, out, sample=sample, stratify=stratify, seed=seed, max_chars=max_chars
        )
    except (DatasetError, ValueError, OSError) as exc:
        raise fail(str(exc)) from exc
    _show(report.bad, report.bad_rows, "bad row")
    _show(report.dropped, report.duplicates + sum(report.filtered.values()), "dropped")
    _print_logs_report(report)
    if report.written == 0:
        _warn("warning: no row was written")


def _print_generate_report(report: GenerateReport, out: Path) -> None:
    from veracity.testset.report import DROP_REASONS

    usage = report.usage
    tokens = usage.input_tokens + usage.output_tokens
    _say(
        f"generate: {report.documents} document(s), {report.chunks} chunk(s); "
        f"{report.calls} generation call(s) in {report.rounds} round(s), "
        f"{report.failed_calls} failed"
    )
    _say(f"  endpoint calls {usage.calls:,}, from cache {usage.cached_calls:,}, tokens {tokens:,}")
    dropped = {reason: report.dropped.get(reason, 0) for reason in DROP_REASONS}
    _say(f"  {'generated':<10}{report.generated:>6,}")
    _say(f"  {'kept':<10}{report.kept:>6,} of {report.count:,} asked -> {out}")
    _say(f"  {'dropped':<10}{sum(dropped.values()):>6,}{_counts(dropped)}")
    for kind, count in report.by_type.items():
        _say(
            f"  {kind:<20} kept {count.kept:>4} of {count.wanted:<4} (generated {count.generated})"
        )


@testset_app.command("generate", cls=Command)
@run_settings("judge", "base_url", "concurrency", "rpm", "timeout", "structured_output", "cache")
def generate(
    docs_dir: Annotated[Path, typer.Argument(help="Folder of .txt, .md and .markdown files.")],
    count: Annotated[int, typer.Option(min=1, help="How many checked items to write.")],
    out: Annotated[Path, typer.Option(help="The test set to write (JSONL).")],
    settings: RunConfig,
    seed: Annotated[int, typer.Option(help="Seed of the chunk selection.")] = 0,
    chunk_chars: Annotated[
        int, typer.Option(min=200, help="Chunk size in characters.")
    ] = DEFAULT_CHUNK_CHARS,
    per_call: Annotated[
        int, typer.Option(min=1, max=10, help="Items asked for in one call.")
    ] = DEFAULT_PER_CALL,
    min_support: Annotated[
        float,
        typer.Option(min=0.0, max=1.0, help="Keep items whose reference is this supported."),
    ] = DEFAULT_MIN_SUPPORT,
) -> None:
    """Generate a test set from documents with an LLM.

    Questions of four types (fact_retrieval, complex_reasoning, contextual_summary,
    creative_generation), each with a reference answer and the chunks it rests on. Every
    reference is checked against its chunks by the faithfulness judge; unsupported ones
    are dropped and counted. Calls are batched and go through the response cache.
    """
    from veracity.chat.cache import ResponseCacheError
    from veracity.judges import JudgeFatalError, JudgeSpecError, LLMJudge
    from veracity.testset.generate import agenerate_testset
    from veracity.testset.output import write_jsonl

    if not docs_dir.exists():
        raise fail(f"documents not found: {docs_dir}")
    try:
        if settings.judge_spec == "offline":
            raise fail(
                "test-set generation needs an LLM: --judge openai/MODEL (with --base-url "
                "for a local server) or --judge anthropic/MODEL"
            )
        the_judge = settings.make_judge()
    except (JudgeSpecError, ValueError) as exc:
        raise fail(str(exc)) from exc
    if not isinstance(the_judge, LLMJudge):
        raise fail(f"test-set generation needs an LLM judge, not {settings.judge_spec}")

    async def generate_all(judge: LLMJudge) -> GenerateResult:
        try:
            return await agenerate_testset(
                docs_dir, judge, count=count, seed=seed, chunk_chars=chunk_chars,
                per_call=per_call, min_support=min_support, cache=settings.cache,
                cache_max_size=settings.cache_max_size,
            )  # fmt: skip
        finally:
            await judge.aclose()

    try:
        result = asyncio.run(generate_all(the_judge))
        write_jsonl(out, result.samples)
    except (FileNotFoundError, ValueError, OSError, ResponseCacheError) as exc:
        raise fail(str(exc)) from exc
    except JudgeFatalError as exc:
        raise fail(f"the judge cannot work: {exc}") from exc
    report = result.report
    _show(report.problems, sum(report.dropped.values()) + report.failed_calls, "dropped")
    _print_generate_report(report, out)
    if report.kept < count:
        _warn(f"warning: kept {report.kept} of the {count} items asked for")
