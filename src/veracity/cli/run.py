"""``veracity run`` and ``veracity estimate``."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from veracity.cli.common import (
    EXIT_JUDGE_ERRORS,
    EXIT_THRESHOLD,
    cannot_write,
    check_dataset,
    err_console,
    fail,
    html_option,
    html_target,
    interrupted,
    out_console,
)
from veracity.cli.settings import run_settings
from veracity.config.model import RunConfig
from veracity.store.layout import DATABASE, MANIFEST, REPORT, RESULTS

if TYPE_CHECKING:  # the evaluation stack loads when a command runs, not for --help
    from veracity.agreement.calibration_file import CalibrationFile
    from veracity.cli.progress import RunProgress
    from veracity.dataset import RowError
    from veracity.decisions import ServerLimits
    from veracity.evaluation import EvaluationResult
    from veracity.metrics import Metric
    from veracity.runner.estimate import Estimate

MAX_SHOWN = 20


def _bad_rows(rows: list[RowError], what: str) -> None:
    from veracity.report.terminal import visible

    for row in rows[:MAX_SHOWN]:
        # A row's message quotes the data: no markup, no control character reaches the screen.
        err_console.print(f"[yellow]{what}[/] {escape(visible(row))}", highlight=False)
    if len(rows) > MAX_SHOWN:
        err_console.print(f"… and {len(rows) - MAX_SHOWN} more", highlight=False)


def _gates(
    settings: RunConfig, metrics: list[Metric], calibrated: bool = False
) -> dict[str, float]:
    """The thresholds, each on a metric of this run: a gate on a metric the run does not
    compute could never be met, so it fails now, before the first judge call, rather than
    after the whole run. ``calibrated``: the run gives calibrated probabilities (its
    calibration, or its judge's default)."""
    from veracity.report.thresholds import gated_metric

    names = [metric.name for metric in metrics]
    for gate in settings.thresholds:
        if gated_metric(gate) not in names:
            raise ValueError(
                f"threshold on {gate!r}, a metric this run does not compute "
                f"(its metrics: {', '.join(names)}); add it to --metrics or drop the threshold"
            )
        if gate != gated_metric(gate) and not calibrated:
            raise ValueError(
                f"threshold on {gate!r} needs calibrated probabilities: --calibration (a file "
                "veracity calibrate wrote, or a named scoring), or the offline judge (calibrated "
                "by default)"
            )
    return dict(settings.thresholds)


def _check_gates(result: EvaluationResult, gates: dict[str, float], run_dir: Path) -> None:
    """Print the thresholds' checks; exit 3 on too many judge errors, else 1 on a miss."""
    from veracity.report.thresholds import check_thresholds

    checks = check_thresholds(result.summary, gates)
    for check in checks:
        out_console.print(str(check), style="green" if check.met else "bold red", highlight=False)
    # Before the thresholds' exit 1: means over too few scored results prove nothing.
    judge_errors = result.error_check
    if not judge_errors.met:
        raise fail(
            f"{judge_errors}; each result's reason is in {run_dir / RESULTS} (--retry-errors "
            "asks the judge again for them; --max-error-rate sets the share allowed)",
            EXIT_JUDGE_ERRORS,
        )
    if not all(check.met for check in checks):
        raise typer.Exit(EXIT_THRESHOLD)


def _calibration(given: str | CalibrationFile | None) -> CalibrationFile | None:
    """The calibration file or named scoring, read before any judge call
    (CalibrationFileError is a ValueError naming the file); ``None`` for none given, or
    ``none``."""
    from veracity.agreement.calibration_file import read_calibration
    from veracity.agreement.scorings import NO_CALIBRATION

    if given is None or given == NO_CALIBRATION:
        return None
    return read_calibration(given) if isinstance(given, str) else given


def _calibrated(
    settings: RunConfig, calibration: CalibrationFile | None, judge: str, metrics: list[Metric]
) -> bool:
    """Whether the run gives calibrated probabilities: its calibration, or (none named)
    its judge's default."""
    from veracity.evaluation.calibrating import default_scoring

    if calibration is not None:
        return True
    names = [m.name for m in metrics]
    return settings.calibration is None and default_scoring(judge, names) is not None


def _settings_errors() -> tuple[type[Exception], ...]:
    """What settings a user got wrong raise (each message names the setting)."""
    from veracity.config import ConfigError
    from veracity.judges import JudgeSpecError
    from veracity.metrics import UnknownMetricError
    from veracity.runner import ExecutorError

    return (UnknownMetricError, JudgeSpecError, ConfigError, ExecutorError, ValueError)


def _run_errors() -> tuple[type[Exception], ...]:
    """What a run that cannot go on raises, beyond the judge's own failures: bad input,
    a run directory or cache in the way, a local model that cannot load, a calibration
    for another kind of judge."""
    from veracity.agreement.calibration_file import CalibrationFileError
    from veracity.chat.cache import ResponseCacheError
    from veracity.chat.stack import BatchUnavailableError
    from veracity.dataset import DatasetError
    from veracity.embeddings import MissingLocalModelError, ModelIntegrityError, ModelSpecError
    from veracity.runner import ExecutorError
    from veracity.store import RunDirectoryError

    return (
        CalibrationFileError,
        DatasetError,
        RunDirectoryError,
        ResponseCacheError,
        MissingLocalModelError,
        ModelIntegrityError,
        ModelSpecError,
        ExecutorError,
        BatchUnavailableError,
    )


def _count_samples(dataset: Path) -> int | None:
    """For the progress bar's total; a file that breaks is left to the run to report."""
    from veracity.dataset import DatasetError, read_dataset
    from veracity.types import Sample

    try:
        return sum(isinstance(item, Sample) for item in read_dataset(dataset))
    except DatasetError:
        return None


def _progress(
    dataset: Path, run_dir: Path, chosen: Sequence[Metric], iterations: int, retry_errors: bool
) -> RunProgress:
    """The progress bar, on a terminal: every result the run will have, those a resumed
    run already has counted as done."""
    from veracity.cli.progress import RunProgress
    from veracity.store import results_done

    samples = _count_samples(dataset) if err_console.is_terminal else None
    if samples is None:
        return RunProgress(err_console, None)
    total = samples * len(chosen) * iterations
    names = (metric.name for metric in chosen)
    done = results_done(run_dir, names, iterations, redo_errors=retry_errors)
    return RunProgress(err_console, total, done=min(done, total))


@run_settings(
    "metrics", "judge", "base_url", "claims_judge", "claims_base_url", "grouping_ms",
    "concurrency", "rpm", "iterations", "timeout", "structured_output", "max_tokens",
    "prompt_budget", "truncate_contexts",
    "unfounded_support", "cache", "cache_max_size", "thresholds", "embedder",
    "max_error_rate", "executor", "ray_address", "batch", "calibration", "force_calibration",
    "citation_index_base", "supported_by_conversation", "bert_scorer",
)  # fmt: skip
def run(  # noqa: PLR0913 - a command: one parameter a flag
    given: Annotated[
        str,
        typer.Argument(
            metavar="DATASET",
            help="JSONL, JSON or CSV file of samples (with --from, where the traces are).",
        ),
    ],
    settings: RunConfig,
    out: Annotated[
        Path | None, typer.Option(help="Run directory (default runs/<dataset name>).")
    ] = None,
    strict: Annotated[bool, typer.Option(help="Fail on any bad row before judging.")] = False,
    resume: Annotated[
        bool, typer.Option(help="Continue the run in --out (re-running into it does too).")
    ] = False,
    retry_errors: Annotated[
        bool,
        typer.Option(help="Ask the judge again for the judge_error results in --out only."),
    ] = False,
    html: Annotated[
        str | None, html_option("the HTML report (self-contained)", "report.html in the run")
    ] = None,
    source: Annotated[
        str,
        typer.Option(
            "--from",
            help="What DATASET is: file (a dataset file), otlp (an OTLP JSON trace file), "
            "phoenix (a running Arize Phoenix's URL) or langfuse (a Langfuse export, or a "
            "Langfuse server's URL with LANGFUSE_PUBLIC_KEY/LANGFUSE_SECRET_KEY set): the "
            "traces' RAG requests are the samples.",
        ),
    ] = "file",
    project: Annotated[str, typer.Option(help="With --from phoenix: the project.")] = "default",
    since: Annotated[
        str | None,
        typer.Option(
            help="With --from phoenix or a Langfuse URL: spans of the last 24h, 7d, 30m… or "
            "since a date."
        ),
    ] = None,
    sample: Annotated[
        int | None,
        typer.Option(min=1, help="With --from: evaluate N of the traces, each system its share."),
    ] = None,
    seed: Annotated[int, typer.Option(help="With --sample: the draw's seed.")] = 0,
    filters: Annotated[
        list[str] | None,
        typer.Option(
            "--filter",
            metavar="KEY=PATTERN",
            help="With --from: evaluate only the traces with a span where KEY=PATTERN (or "
            "none where KEY!=PATTERN); KEY a span attribute, service.name, project or name; a glob "
            "PATTERN (repeatable, all must hold).",
        ),
    ] = None,
) -> None:
    """Evaluate a dataset and write a run directory."""
    from veracity.chat.batching import BatchSettings
    from veracity.dataset import BadRowsWarning, NoValidSampleError, RowError, read_dataset
    from veracity.evaluation import aevaluate
    from veracity.judges import JudgeFailingError, JudgeFatalError

    dataset = Path(given)
    run_dir = _run_dir(given, source, project, out)
    has_run = any((run_dir / name).exists() for name in (MANIFEST, DATABASE))
    traces_read: dict[str, object] = {}  # what reading the traces found, for run.json
    if source != "file":
        from veracity.cli.from_traces import TraceOptions, samples_of_traces

        options = TraceOptions(source, project, since, tuple(filters or ()), sample, seed)
        dataset, traces_read["traces_read"] = samples_of_traces(
            given, run_dir, options, settings.traces
        )
    if resume and not has_run:
        raise fail(f"--resume: there is no run to resume in {run_dir}")
    if retry_errors and not has_run:
        raise fail(f"--retry-errors: there is no run in {run_dir} whose errors to retry")
    try:
        chosen = settings.resolved_metrics()
        calibrator = _calibration(settings.calibration)
        the_judge = settings.make_judge()
        calibrated = _calibrated(settings, calibrator, the_judge.name, chosen)
        gates = _gates(settings, chosen, calibrated)
    except _settings_errors() as exc:
        raise fail(str(exc)) from exc
    defaulted = _said_judge(settings, the_judge.name)
    try:
        if strict:
            errors = [row for row in read_dataset(dataset) if isinstance(row, RowError)]
            if errors:
                _bad_rows(errors, "bad row")
                raise fail(f"--strict: {len(errors)} bad row(s) in {dataset}; no judge call made")
        progress_bar = _progress(dataset, run_dir, chosen, settings.iterations, retry_errors)
        # The CLI lists bad rows itself (below), not as a Python warning.
        with progress_bar as progress, warnings.catch_warnings():
            warnings.simplefilter("ignore", BadRowsWarning)
            result = asyncio.run(
                aevaluate(
                    dataset,
                    chosen,
                    the_judge,
                    # The calibration goes as named (read again): run.json names its source.
                    config=settings.overridden(
                        {
                            "keep_results": False,
                            "extra_settings": {
                                **settings.extra_settings,
                                "strict": strict,
                                "retry_errors": retry_errors,
                                "thresholds": gates,
                                **traces_read,
                            },
                            "batch": BatchSettings(
                                poll_s=settings.batch_poll_s, on_status=progress.batch
                            )
                            if settings.batch
                            else False,
                        }
                    ),
                    out=run_dir,
                    on_result=progress,
                    retry_errors=retry_errors,
                )
            )
    except KeyboardInterrupt as exc:
        # Caught here, not left to typer (which exits 130 in silence): the user learns
        # that nothing finished was lost, and where it is.
        raise interrupted(run_dir) from exc
    except NoValidSampleError as exc:  # bad input, not a judge that failed (exit 3)
        _bad_rows(list(exc.bad_rows), "bad row")
        raise fail(f"no valid sample in {dataset} ({len(exc.bad_rows)} bad row(s))") from exc
    except _run_errors() as exc:
        raise fail(str(exc)) from exc
    except JudgeFailingError as exc:  # a server failing every call: judge errors, not usage
        raise fail(
            f"the judge is failing: {exc} (every result so far is kept in {run_dir}: once the "
            "server answers, the same command goes on, and with --retry-errors asks again "
            "for the calls that failed)",
            EXIT_JUDGE_ERRORS,
        ) from exc
    except JudgeFatalError as exc:
        raise fail(f"the judge cannot work: {exc} (results so far are in {run_dir})") from exc

    page = html_target(html, run_dir / REPORT)
    _finish(result, run_dir, dataset, html=page, gates=gates, defaulted=defaulted)


def _said_judge(settings: RunConfig, name: str) -> bool:
    """Say before the first call when the offline judge runs because no LLM judge was
    configured (a user who meant one learns it now, not from the scores); whether so."""
    from veracity.report.console import NO_JUDGE_CONFIGURED

    if settings.judge is not None or not name.startswith("offline"):
        return False
    err_console.print(
        f"note: judging with the offline judge ({NO_JUDGE_CONFIGURED}); "
        "--judge openai/MODEL or anthropic/MODEL for an LLM judge",
        style="yellow",
        highlight=False,
        markup=False,
    )
    return True


def _run_dir(given: str, source: str, project: str, out: Path | None) -> Path:
    """``--out``, else runs/ and the dataset's name, the Phoenix project's or the trace
    server's kind; a dataset file that is not there is said first."""
    from veracity.traces import is_url

    if source != "file" and is_url(given):
        return out or Path("runs") / (project if source == "phoenix" else source)
    check_dataset(Path(given))
    return out or Path("runs") / Path(given).stem


def _finish(
    result: EvaluationResult,
    run_dir: Path,
    dataset: Path,
    *,
    html: Path | None,
    gates: dict[str, float],
    defaulted: bool = False,
) -> None:
    """A finished run's summary, where it is, its report, and its gates."""
    from veracity.report import print_summary

    _bad_rows(list(result.bad_rows), "bad row")
    print_summary(result.summary, out_console, judge=result.manifest["judge"], defaulted=defaulted)
    resumed = result.manifest["attempts"][-1]["results_resumed"]
    if resumed:
        out_console.print(f"resumed: {resumed} result(s) were already done", highlight=False)
    _recalibrated(result.manifest)
    out_console.print(f"run directory: {run_dir}", highlight=False)
    _html_report(run_dir, dataset, html)
    _check_gates(result, gates, run_dir)


def _recalibrated(manifest: dict[str, Any]) -> None:
    """Say when results an earlier attempt left were given this run's calibration: a run
    directory has one calibration, the one its run.json names (re-applied, no judge call)."""
    from veracity.report.terminal import visible

    attempt = manifest["attempts"][-1]
    changed = attempt.get("results_recalibrated")
    if not changed:
        return
    source = attempt.get("calibration")
    line = (
        f"calibration {source}: re-applied to {changed} result(s) already done (from their "
        "stored signals, no judge call)"
        if source
        else f"no calibration given: the calibrated probability of {changed} result(s) "
        "already done was removed"
    )
    out_console.print(visible(line), highlight=False, markup=False)


def _html_report(run_dir: Path, dataset: Path, page: Path | None) -> None:
    """Write the HTML report (``--html [PATH]``) to ``page``, or say how to."""
    from veracity.report.html import write_report

    if page is None:
        out_console.print(
            f"HTML report: veracity report {run_dir} --html", highlight=False, markup=False
        )
        return
    try:
        written = write_report(run_dir, page, dataset=dataset)
    except OSError as exc:
        raise cannot_write(page, exc) from exc
    out_console.print(f"report: {written}", highlight=False)


@run_settings(
    "metrics", "judge", "base_url", "concurrency", "rpm", "iterations", "embedder",
    "prompt_budget", "truncate_contexts", "batch", "claims_judge",
)  # fmt: skip
def estimate(
    dataset: Annotated[Path, typer.Argument(help="JSONL, JSON or CSV file of samples.")],
    settings: RunConfig,
) -> None:
    """Predict the judge calls, tokens, cost and time of a run, making no call."""
    from veracity.dataset import DatasetError
    from veracity.report.console import NO_JUDGE_CONFIGURED
    from veracity.transport.pricing import BATCH_DISCOUNT

    check_dataset(dataset)
    try:
        chosen = settings.resolved_metrics()
    except _settings_errors() as exc:
        raise fail(str(exc)) from exc
    if settings.batch and settings.judge_spec.partition("/")[0] not in BATCH_DISCOUNT:
        raise fail(
            f"--batch needs an openai/MODEL or anthropic/MODEL judge, not {settings.judge_spec}"
        )
    try:
        parts = _estimated(dataset, settings, chosen)
    except DatasetError as exc:
        raise fail(str(exc)) from exc
    found = parts[0][1]
    offline = settings.judge_spec == "offline"
    why = f" ({NO_JUDGE_CONFIGURED})" if settings.judge is None else ""
    out_console.print(
        f"{found.samples} samples × {len(chosen)} metric(s) × {settings.iterations} "
        f"iteration(s) with {f'the offline judge{why}' if offline else settings.judge_spec}:",
        highlight=False,
        markup=False,
    )
    if offline:  # local models: no call and no cost to predict
        out_console.print("  judge calls     none: the offline judge runs local models")
        out_console.print("  cost            none")
        _not_sent(found.over_budget, settings)
        return
    costs = [_print_estimate(spec, part, settings, heading=len(parts) > 1) for spec, part in parts]
    if len(parts) > 1:
        known = [c for c in costs if c is not None]
        total = (
            f"~${sum(known):.4f}" if len(known) == len(costs) else "unknown (a part has no price)"
        )
        out_console.print(f"  total cost      {total}", highlight=False)
    if settings.batch:
        out_console.print(
            "  time            up to 24 h a phase (the providers' window; often far less)",
            highlight=False,
        )
    elif settings.rpm:
        minutes = sum(part.calls for _, part in parts) / settings.rpm
        out_console.print(f"  time at {settings.rpm:g} rpm  ≥ {minutes:.1f} min", highlight=False)


def _estimated(
    dataset: Path, settings: RunConfig, chosen: list[Metric]
) -> list[tuple[str, Estimate]]:
    """The estimate of each model a run would call, by its ``--judge`` spec: the judge, and
    the chat judge drawing a decision judge's claims, if one does."""
    from veracity.dataset import read_dataset
    from veracity.embeddings.factory import local_embedder_available
    from veracity.runner.estimate import estimate_extractions, estimate_run
    from veracity.runner.estimate_decisions import estimate_decisions
    from veracity.types import Sample

    def samples() -> Iterator[Sample]:
        return (item for item in read_dataset(dataset) if isinstance(item, Sample))

    spec, iterations, budget = settings.judge_spec, settings.iterations, settings.budget
    limits = _decision_limits(spec)
    if limits is None:
        has_embedder = settings.embedder_spec is not None and (
            settings.embedder_spec != "auto" or local_embedder_available()
        )
        found = estimate_run(
            samples(), chosen, iterations=iterations, has_embedder=has_embedder, budget=budget
        )
        return [(spec, found)]
    parts = [
        (spec, estimate_decisions(samples(), chosen, limits, iterations=iterations, budget=budget))
    ]
    if settings.claims_judge not in (None, "offline"):
        claims = estimate_extractions(samples(), chosen, iterations=iterations, budget=budget)
        parts.append((settings.claims_judge, claims))
    return parts


def _print_estimate(
    spec: str, found: Estimate, settings: RunConfig, *, heading: bool
) -> float | None:
    """One model's calls, tokens and cost (``None`` when its price is unknown)."""
    from veracity.transport.pricing import batch_price, find_price
    from veracity.types import Usage

    decisions = _decision_limits(spec) is not None
    if heading:
        what = "decisions" if decisions else "claims"
        out_console.print(f"  {what} by {spec}:", highlight=False)
    calls = "requests" if decisions else "calls"
    out_console.print(f"  judge {calls:<10}{found.calls:,}", highlight=False)
    for prompt, count in sorted(found.calls_by_prompt.items()):
        out_console.print(f"    {prompt:<22}{count:,}", highlight=False)
    _not_sent(found.over_budget, settings)
    out_console.print(f"  input tokens    ~{found.input_tokens:,}", highlight=False)
    if decisions:
        out = "none (a decision model writes no text)"
        out_console.print(f"  output tokens   {out}", highlight=False)
    else:
        out_console.print(f"  output tokens   ~{found.output_tokens:,}", highlight=False)
    price = find_price(spec, settings.price_table)
    if price is None:
        unknown = "unknown: no price for this model (add one under prices: in the config file)"
        out_console.print(f"  cost            {unknown}", highlight=False)
        return None
    usage = Usage(input_tokens=found.input_tokens, output_tokens=found.output_tokens)
    cost = f"~${price.cost(usage):.4f}"
    batched = batch_price(spec, settings.price_table)
    if settings.batch and batched is not None:
        cost += f" live · ~${batched.cost(usage):.4f} with --batch"
    out_console.print(f"  cost            {cost}", highlight=False)
    return price.cost(usage)


def _decision_limits(spec: str) -> ServerLimits | None:
    """The request limits of a decision judge's server; ``None`` for another judge."""
    from veracity.decisions.limits import OPENAI_DECISIONS_LIMITS, SYSTEMONE_LIMITS

    return {"systemone": SYSTEMONE_LIMITS, "openai-decisions": OPENAI_DECISIONS_LIMITS}.get(
        spec.partition("/")[0]
    )


def _not_sent(over_budget: int, settings: RunConfig) -> None:
    if over_budget:
        out_console.print(
            f"  not sent        {over_budget:,} question(s) over the prompt budget of "
            f"{settings.prompt_budget:,} tokens (invalid_input)",
            highlight=False,
        )
