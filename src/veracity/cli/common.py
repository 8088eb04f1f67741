"""What the commands share: consoles, failing with exit code 2, the run settings."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from veracity.judges.llm.evidence import DEFAULT_UNFOUNDED_SUPPORT
from veracity.prompts.budget import DEFAULT_PROMPT_BUDGET
from veracity.report.terminal import visible_lines
from veracity.report.thresholds import DEFAULT_MAX_ERROR_RATE
from veracity.transport.limits import DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_S

if TYPE_CHECKING:
    from veracity.config import RunConfig

EXIT_OK, EXIT_THRESHOLD, EXIT_USAGE, EXIT_JUDGE_ERRORS = 0, 1, 2, 3
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


def _finite(value: float | None) -> float | None:
    """An option's value unless it is inf, which ``min=`` lets through."""
    if value is not None and not math.isfinite(value):
        raise typer.BadParameter(f"must be a finite number, not {value}")
    return value


# The options ``run`` and ``estimate`` share. ``None`` means "not given": the config file's
# value applies, else the built-in default.
Metrics = Annotated[str | None, typer.Option(help="Comma-separated metric names.")]
JudgeOption = Annotated[
    str | None,
    typer.Option(
        "--judge",
        help="offline, openai/MODEL or anthropic/MODEL (default: openai/gpt-4o-mini when "
        "OPENAI_API_KEY or OPENAI_BASE_URL is set, else offline).",
    ),
]
LLMJudgeOption = Annotated[
    str | None,
    typer.Option(
        "--judge",
        help="openai/MODEL or anthropic/MODEL (default: openai/gpt-4o-mini when "
        "OPENAI_API_KEY or OPENAI_BASE_URL is set).",
    ),
]
BaseUrl = Annotated[
    str | None, typer.Option(help="OpenAI-compatible base URL (or OPENAI_BASE_URL).")
]
Concurrency = Annotated[
    int | None, typer.Option(min=1, help=f"Judge calls in flight ({DEFAULT_CONCURRENCY}).")
]
Rpm = Annotated[
    float | None,
    typer.Option(min=0.001, callback=_finite, help="At most this many calls a minute."),
]
Timeout = Annotated[
    float | None,
    typer.Option(
        min=0.1,
        callback=_finite,
        help=f"Seconds per call, the whole reply included ({DEFAULT_TIMEOUT_S:g}).",
    ),
]
Iterations = Annotated[int | None, typer.Option(min=1, help="Judge every sample N times (1).")]
MaxErrorRate = Annotated[
    float | None,
    typer.Option(
        help=f"Exit 3 when judge errors leave more than this share of the results unscored "
        f"({DEFAULT_MAX_ERROR_RATE:g}); a run that scores nothing always does."
    ),
]
EmbedderOption = Annotated[
    str | None,
    typer.Option(
        "--embedder",
        help="auto, local, local:DIR, openai/MODEL or none. The local model's precision: "
        "$VERACITY_EMBEDDING_PRECISION (auto, float32, bfloat16).",
    ),
]
StructuredOutputOption = Annotated[
    str | None,
    typer.Option(
        help="json_schema, json_object_schema (JSON mode with the schema: llama.cpp), "
        "json_object or text; a rejected mode steps down in that order (json_schema)."
    ),
]
MaxTokensOption = Annotated[
    list[str] | None,
    typer.Option(help="question=N: bound the judge's replies to a question (repeatable)."),
]
PromptBudgetOption = Annotated[
    int | None,
    typer.Option(
        min=1,
        help="Tokens one judge call may send, at 4 characters a token "
        f"({DEFAULT_PROMPT_BUDGET:,}); a sample over it is invalid_input.",
    ),
]
CacheMaxSize = Annotated[
    str | None,
    typer.Option(
        metavar="SIZE",
        help="Bound of the shared response cache: 500MB, 2GiB, none... (default 1GiB, or "
        "cache_max_size in the config file, or the VERACITY_CACHE_MAX_SIZE environment "
        "variable). The least recently used replies go first, never this run's.",
    ),
]
TruncateContexts = Annotated[
    bool | None,
    typer.Option(
        "--truncate-contexts/--no-truncate-contexts",
        help="Cut the contexts of a prompt over --prompt-budget to fit (noted in details).",
    ),
]
ExecutorOption = Annotated[
    str | None,
    typer.Option(
        "--executor",
        help="local, or ray: score on a Ray cluster (pip install 'veracity[ray]').",
    ),
]
RayAddressOption = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        help="The Ray cluster to join (default RAY_ADDRESS, else a local instance).",
    ),
]
BatchOption = Annotated[
    bool | None,
    typer.Option(
        "--batch/--no-batch",
        help="Send the judge's calls through the provider's batch API (openai/, anthropic/): "
        "half price, answers within 24 h.",
    ),
]
UnfoundedSupportOption = Annotated[
    str | None,
    typer.Option(
        "--unfounded-support",
        help="A supported verdict whose evidence quote is not in the contexts: flag (kept, "
        f"flagged) or downgrade (to not_enough_info). Default: {DEFAULT_UNFOUNDED_SUPPORT}.",
    ),
]
ConfigOption = Annotated[
    Path | None,
    # The bracket is escaped: help text is rich markup, where [tool.veracity] is a tag.
    typer.Option(
        "--config",
        help="Config file (default ./veracity.yaml or \\[tool.veracity] in pyproject.toml).",
    ),
]


def settings_from(  # noqa: PLR0913 - the run commands' flags, one each, laid over the config
    config_path: Path | None,
    *,
    metrics: str | None = None,
    judge: str | None = None,
    base_url: str | None = None,
    concurrency: int | None = None,
    rpm: float | None = None,
    iterations: int | None = None,
    timeout: float | None = None,
    structured_output: str | None = None,
    max_tokens: list[str] | None = None,
    unfounded_support: str | None = None,
    embedder: str | None = None,
    cache: bool | str | None = None,
    cache_max_size: str | None = None,
    prompt_budget: int | None = None,
    truncate_contexts: bool | None = None,
    max_error_rate: float | None = None,
    executor: str | None = None,
    ray_address: str | None = None,
    batch: bool | None = None,
) -> RunConfig:
    """The run's settings: the flags given (not ``None``) over the config file over the
    defaults, each checked before any call: a run that cannot start should not half-start."""
    # Imported here: the command line starts without the judges and the runner.
    from veracity._suggest import one_of
    from veracity.chat.base import STRUCTURED_OUTPUT_MODES
    from veracity.chat.cache import cache_max_bytes
    from veracity.config import load_config
    from veracity.judges.llm.evidence import UNFOUNDED_SUPPORTS
    from veracity.report.thresholds import checked_error_rate
    from veracity.runner import checked_executor
    from veracity.transport.urls import checked_base_url

    config = load_config(config_path)
    flags: dict[str, Any] = {
        "judge": judge, "concurrency": concurrency, "rpm": rpm, "iterations": iterations,
        "timeout": timeout, "embedder": embedder, "cache": cache,
        "cache_max_size": cache_max_size, "prompt_budget": prompt_budget,
        "truncate_contexts": truncate_contexts, "ray_address": ray_address, "batch": batch,
        "metrics": None if metrics is None else _metric_names(metrics),
        "max_tokens": {**config.max_tokens, **_reply_bounds(max_tokens)} if max_tokens else None,
        "structured_output": None if structured_output is None
        else one_of(structured_output, STRUCTURED_OUTPUT_MODES, "--structured-output"),
        "unfounded_support": None if unfounded_support is None
        else one_of(unfounded_support, UNFOUNDED_SUPPORTS, "--unfounded-support"),
        # Not ``or``: 0 is a valid share (no judge error allowed).
        "max_error_rate": None if max_error_rate is None
        else checked_error_rate(max_error_rate, "--max-error-rate"),
        "executor": None if executor is None else checked_executor(executor),
        # Checked before any call: a URL no request can go to would otherwise be retried.
        "base_url": None if not base_url else checked_base_url(base_url, "--base-url"),
    }  # fmt: skip
    if config.base_url and not base_url:
        checked_base_url(config.base_url, "base_url of the config file")
    given = {name: value for name, value in flags.items() if value is not None}
    # The file's values are checked already: what fails here is a flag.
    settings = config.overridden(given, lambda name: "--" + name.replace("_", "-"))
    try:  # a bad $VERACITY_CACHE_MAX_SIZE fails before the first call
        cache_max_bytes(settings.cache_max_size)
    except ValueError as exc:
        raise ValueError(str(exc)) from None
    checked_executor(settings.executor)
    if settings.ray_address and settings.executor != "ray":
        raise ValueError("--ray-address is for --executor ray")
    return settings


def _reply_bounds(specs: list[str]) -> dict[str, int]:
    """``--max-tokens question=N`` flags as a mapping (checked by the judge)."""
    bounds = {}
    for spec in specs:
        question, sep, value = spec.partition("=")
        if not sep or not value.strip().isdigit():
            raise ValueError(
                f"bad --max-tokens {spec!r}: expected question=N, e.g. claim_verification=2048"
            )
        bounds[question.strip()] = int(value)
    return bounds


def _metric_names(given: str) -> tuple[str, ...]:
    """``--metrics`` as names; one naming none (``""``, ``","``) is an error, not the default."""
    names = tuple(name.strip() for name in given.split(",") if name.strip())
    if not names:
        raise ValueError(
            f"--metrics {given!r} names no metric: give comma-separated names, "
            "e.g. --metrics faithfulness,context_recall"
        )
    return names
