"""``evaluate``: the Python API of ``veracity run``."""

from __future__ import annotations

import asyncio
import platform
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Unpack

from veracity._version import __version__
from veracity.chat.batching import BatchSettings
from veracity.chat.cache import ResponseCache, cache_max_bytes, remove_cache
from veracity.chat.stack import check_batchable, open_cache, stack_chat
from veracity.config import RunConfig
from veracity.dataset import BadRowsWarning, NoValidSampleError, RowError
from veracity.dataset.ids import dataset_identity
from veracity.embeddings import make_bert_scorer, make_embedder
from veracity.evaluation.blocking import run_blocking
from veracity.evaluation.calibrating import Calibrating, checked_calibration
from veracity.evaluation.deprecated import DeprecatedKeywords, moved_keywords
from veracity.evaluation.inputs import Samples, items_from, row_count
from veracity.evaluation.notebook import NotebookProgress, in_notebook
from veracity.evaluation.result import EvaluationResult
from veracity.evaluation.settings import judge_of
from veracity.judges import Judge, JudgeFatalError
from veracity.judges.rechat import billing_models, chat_of, rechat, with_cached_decisions
from veracity.metrics import (
    Metric,
    Models,
    Need,
    RubricMetric,
    no_metric_error,
)
from veracity.prompts import rubric_template
from veracity.report import SummaryBuilder, thresholds_from_settings
from veracity.runner import metrics_runner
from veracity.store import BATCHES, REPLIES, RunDirectory, timestamp
from veracity.transport.pricing import Price, Pricing, batch_price, find_price
from veracity.types import ResultRecord, Sample


async def aevaluate(
    samples: Samples,
    metrics: str | Metric | Sequence[str | Metric] | None = None,
    judge: Judge | str | None = None,
    *,
    config: RunConfig | None = None,
    out: str | Path | None = None,
    on_result: Callable[[ResultRecord], None] | None = None,
    column_map: Mapping[str, str] | None = None,
    retry_errors: bool = False,
    **deprecated: Unpack[DeprecatedKeywords],
) -> EvaluationResult:
    """Evaluate ``samples`` with ``metrics`` (a name, a metric, or a list of them; left
    out: the config's) and return the result.

    ``samples``: a dataset path, a list of dicts or samples, a pandas DataFrame or a
    Hugging Face ``datasets.Dataset``, read a row at a time with a file's aliases;
    ``column_map={"question": "query"}`` names other columns. ``judge``: a judge object
    or a spec (``offline``, ``openai/MODEL``, ``anthropic/MODEL``…; left out: the
    config's). ``config``: a :class:`~veracity.config.RunConfig` (e.g. from
    :func:`~veracity.config.load_config`; default: the defaults) holding every other
    setting — iterations, concurrency, cache, embedder, calibration, batch, executor… —
    each described on its field.

    With ``out``, every result is committed to that run directory the moment it exists;
    a run already there (same dataset and judge) is resumed where it stopped, and the
    files are rewritten at the end. ``retry_errors`` asks the judge again for the
    ``judge_error`` results of the run in ``out``, keeping every other result.
    ``on_result`` is called with each result as it arrives.

    A judge that cannot work at all raises :class:`~veracity.judges.JudgeFatalError`
    after recording what was done. Bad rows are left out and listed in the result's
    ``bad_rows``, with a :class:`~veracity.dataset.BadRowsWarning` giving their count;
    when no row is valid, :class:`~veracity.dataset.NoValidSampleError` is raised.

    The setting keywords of earlier releases (``iterations=``, ``cache=``, …) still
    work, with a :class:`DeprecationWarning` naming their ``RunConfig`` field.
    """
    call = _call("aevaluate", config, out, on_result, column_map, retry_errors, deprecated)
    return await _evaluated(samples, metrics, judge, call)


@dataclass(frozen=True)
class _Call:
    """One call's settings, and what it takes beside them."""

    run: RunConfig
    out: str | Path | None
    on_result: Callable[[ResultRecord], None] | None
    column_map: Mapping[str, str] | None
    retry_errors: bool
    budget_given: bool  # a prompt budget given as a keyword (which a judge object refuses)


def _call(
    function: str,
    config: RunConfig | None,
    out: str | Path | None,
    on_result: Callable[[ResultRecord], None] | None,
    column_map: Mapping[str, str] | None,
    retry_errors: bool,
    deprecated: Mapping[str, Any],
) -> _Call:
    """The call ``function`` (evaluate or aevaluate) was given, checked before anything
    runs: its deprecated keywords warned of and laid over ``config``."""
    if retry_errors and out is None:
        raise ValueError("retry_errors needs out: the run directory whose judge errors to retry")
    run, budget_given = moved_keywords(function, config, deprecated)
    return _Call(run, out, on_result, column_map, retry_errors, budget_given)


async def _evaluated(
    samples: Samples,
    metrics: str | Metric | Sequence[str | Metric] | None,
    judge: Judge | str | None,
    call: _Call,
) -> EvaluationResult:
    run, out = call.run, call.out
    # Checked before anything opens: a run that cannot start should not half-start.
    run_metrics = metrics_runner(run.executor, run.ray_address)
    chosen = _resolved(run.metrics if metrics is None else metrics, run)
    # Samples of a kind no row can be read from fail here, before any model is made.
    items, dataset_path = items_from(samples, call.column_map)
    the_judge, shared = _with_chat_stack(
        judge_of(judge, run, budget_given=call.budget_given),
        run.batch
        if isinstance(run.batch, BatchSettings)
        else run.batch and BatchSettings(poll_s=run.batch_poll_s),
        run,
        out,
    )
    models = _models(the_judge, chosen, run)
    calibrating = checked_calibration(
        run.calibration,
        run.calibration if isinstance(run.calibration, str) else None,
        lambda: _describe_judge(models, chosen),  # described only if a calibration may apply
        [m.name for m in chosen],
        force=run.force_calibration,
    )
    price = _price(the_judge, run)
    read = _Counted(keep=run.keep_results)

    manifest = _manifest(models, chosen, price, dataset_path, {
        **run.describe(), "iterations": run.iterations, "max_error_rate": run.max_error_rate,
        **run.extra_settings,
        **calibrating.settings(),
    })  # fmt: skip
    run_dir, models, own_replies = _open_run(out, manifest, run.cache, models, calibrating)
    arrived = _Arrivals(chosen)
    bad_rows: list[RowError] = []

    def finished(record: ResultRecord, position: int) -> None:
        record = calibrating(_priced(record, price))
        if run_dir is not None:
            run_dir.add(record, position)
        else:
            arrived.add(record, position)
        if call.on_result is not None:
            call.on_result(record)

    def done(sample: Sample, iteration: int) -> set[str]:
        if run_dir is None:
            return set()
        return run_dir.done(sample.id, sample.system, iteration, retry_errors=call.retry_errors)

    status, error = "completed", None
    try:
        await run_metrics(
            read(items),
            chosen,
            models,
            on_result=finished,
            on_bad_row=bad_rows.append,
            iterations=run.iterations,
            done=done if run_dir is not None and run_dir.resumed_results else None,
        )
    except BaseException as exc:
        status, error = _stopped_by(exc)
        raise
    finally:
        try:
            kept: list[ResultRecord] = arrived.in_order()
            # Streamed from the store: a run of any size is summarised in constant memory,
            # with every metric the store holds (an earlier attempt may have had more).
            summary = _summarize(
                run_dir.records() if run_dir else kept,
                run_dir.manifest["metrics"] if run_dir else [m.name for m in chosen],
                len(bad_rows),
                thresholds_from_settings(run.extra_settings),
                price,
            )
            # The judge as it ended: what the endpoint accepted (structured output, logprobs).
            ending = {
                "judge": _describe_judge(models, chosen),
                "status": status,
                "finished_at": timestamp(),
                "bad_rows": len(bad_rows),
            } | ({"error": error} if error else {})
            manifest.update(ending)
            if run_dir is not None:
                run_dir.export(summary, **ending)
                manifest = run_dir.manifest
                if run.keep_results:
                    kept = list(run_dir.records())
        finally:
            # The models first: a batch run's ledger closes with its judge.
            await models.aclose()
            if shared is not None:  # its last uses written, evicted down to its bound
                shared.close()
            if run_dir is not None:
                _close_run(run_dir, own_replies, completed=status == "completed")
    _check_rows(read.valid, bad_rows, dataset_path)
    return EvaluationResult(
        summary=summary,
        results=tuple(kept) if run.keep_results else (),
        samples=tuple(read.samples),
        bad_rows=tuple(bad_rows),
        run_dir=run_dir.path if run_dir else None,
        manifest=manifest,
        max_error_rate=run.max_error_rate,
    )


def _models(judge: Judge, metrics: Sequence[Metric], run: RunConfig) -> Models:
    """The judge, and the local or remote models only the chosen metrics need."""
    needs = frozenset[Need]().union(*(m.needs for m in metrics))
    return Models(
        judge=judge,
        embedder=make_embedder(
            run.embedder_spec, base_url=run.base_url, concurrency=run.concurrency
        )
        if Need.EMBEDDER in needs
        else None,
        bert_scorer=make_bert_scorer(run.bert_scorer) if Need.BERT_SCORER in needs else None,
    )


class _Arrivals:
    """Results of a run without a store, which arrive in completion order, given back in
    the store's order (sample, metric, iteration): the same data then always gives the
    same summary (a bootstrap resamples by position)."""

    def __init__(self, metrics: Sequence[Metric]) -> None:
        self._order = {metric.name: i for i, metric in enumerate(metrics)}
        self._arrived: list[tuple[int, int, int, ResultRecord]] = []

    def add(self, record: ResultRecord, position: int) -> None:
        key = (position, self._order.get(record.metric, 0), record.iteration)
        self._arrived.append((*key, record))

    def in_order(self) -> list[ResultRecord]:
        return [record for *_, record in sorted(self._arrived, key=lambda item: item[:3])]


class _Counted:
    """Counts the valid samples streaming to the run, and keeps them if asked (for the
    result's questions and answers)."""

    def __init__(self, *, keep: bool) -> None:
        self.keep, self.valid, self.samples = keep, 0, list[Sample]()

    def __call__(self, stream: Iterable[Sample | RowError]) -> Iterator[Sample | RowError]:
        for item in stream:
            if isinstance(item, Sample):
                self.valid += 1
                if self.keep:
                    self.samples.append(item)
            yield item


def _check_rows(valid: int, bad_rows: Sequence[RowError], dataset_path: str | None) -> None:
    """Raise when no row was valid; warn (with the count) when some were bad."""
    if not valid:
        raise NoValidSampleError(dataset_path or "the samples given", bad_rows)
    if bad_rows:
        shown = "; ".join(str(row) for row in bad_rows[:3])
        warnings.warn(
            f"{len(bad_rows)} bad row(s) left out (see result.bad_rows): {shown}",
            BadRowsWarning,
            stacklevel=3,
        )


def _with_chat_stack(
    judge: Judge, batch: BatchSettings | bool, run: RunConfig, out: str | Path | None
) -> tuple[Judge, ResponseCache | None]:
    """``judge`` with its calls batched (``batch``) and its replies in the shared cache,
    and the cache it opened. Batching is checked first: a run that cannot start should not
    open anything."""
    batching = batch if isinstance(batch, BatchSettings) else None
    if batching is not None:
        check_batchable(chat_of(judge), judge.name, run.executor)
    shared = open_cache(run.cache, max_bytes=cache_max_bytes(run.cache_max_size))
    run_dir = None if out is None else Path(out)
    stacked = rechat(
        judge, lambda chat: stack_chat(chat, cache=shared, batch=batching, run_dir=run_dir)
    )
    return with_cached_decisions(stacked, shared), shared


def _open_run(
    out: str | Path | None,
    manifest: Mapping[str, Any],
    cache: bool | str,
    models: Models,
    calibrating: Calibrating,
) -> tuple[RunDirectory | None, Models, ResponseCache | None]:
    """The run directory in ``out`` (locked, resumed, its results given this run's
    calibration), the models to run with, and the run's own reply store. Without the
    shared cache the judge still keeps its replies, in the run directory until the run
    completes: a run killed at any instant then loses only the calls in flight, not the
    replies of the samples it had not finished."""
    if out is None:
        return None, models, None
    run_dir = RunDirectory(Path(out))
    run_dir.open(manifest)
    try:  # before any judge call: one calibration for every result of the run
        calibrating.reapply(run_dir)
    except BaseException:
        run_dir.close()
        raise
    if cache is not False:
        return run_dir, models, None
    own_replies = open_cache(run_dir.path / REPLIES, "run")
    the_judge = with_cached_decisions(
        rechat(models.judge, lambda chat: stack_chat(chat, cache=own_replies, scope="run")),
        own_replies,
        "run",
    )
    return run_dir, replace(models, judge=the_judge), own_replies


def _close_run(
    run_dir: RunDirectory, own_replies: ResponseCache | None, *, completed: bool
) -> None:
    if own_replies is not None:
        own_replies.close()
    if completed:  # every result is in: the run's own replies have served their purpose
        remove_cache(run_dir.path / REPLIES)
        remove_cache(run_dir.path / BATCHES)
    run_dir.close()


def evaluate(  # noqa: PLR0913 - the public API: aevaluate's, and the notebook's progress
    samples: Samples,
    metrics: str | Metric | Sequence[str | Metric] | None = None,
    judge: Judge | str | None = None,
    *,
    config: RunConfig | None = None,
    out: str | Path | None = None,
    on_result: Callable[[ResultRecord], None] | None = None,
    column_map: Mapping[str, str] | None = None,
    retry_errors: bool = False,
    progress: bool = True,
    **deprecated: Unpack[DeprecatedKeywords],
) -> EvaluationResult:
    """:func:`aevaluate` for synchronous code, with the same options.

    Where an event loop already runs (a Jupyter notebook's cells do), the evaluation runs
    on a worker thread with its own loop (``on_result`` is called there), and an
    interrupt of the kernel stops it as Ctrl-C stops a script. In a notebook, a progress
    line in the cell shows the results as they finish (``progress=False``: none).
    """
    call = _call("evaluate", config, out, on_result, column_map, retry_errors, deprecated)
    shown = (
        NotebookProgress(_expected(samples, metrics, call.run))
        if progress and in_notebook()
        else None
    )
    if shown is None:
        return run_blocking(lambda: _evaluated(samples, metrics, judge, call))

    def shown_and_given(record: ResultRecord) -> None:
        shown(record)
        if on_result is not None:
            on_result(record)

    showing = replace(call, on_result=shown_and_given)
    try:
        result = run_blocking(
            lambda: _evaluated(samples, metrics, judge, showing), on_wait=shown.refresh
        )
    except BaseException as exc:
        shown.finish(exc)
        raise
    shown.finish(None)
    return result


def _price(judge: Judge, run: RunConfig) -> Pricing:
    """The prices of the judge's tokens: its own model's, and those of a chat judge drawing
    a decision judge's claims (the hybrid), each ``None`` when unknown."""
    own, *others = billing_models(judge)
    find = batch_price if run.batch else find_price
    return Pricing(
        find(own, run.price_table),
        {name: find(name, run.price_table) for name in others},
        model=own,
    )


def _priced(record: ResultRecord, price: Pricing) -> ResultRecord:
    cost = price.cost(record.usage)
    return record if cost is None else record.model_copy(update={"cost_usd": cost})


def _expected(
    samples: Samples, metrics: str | Metric | Sequence[str | Metric] | None, run: RunConfig
) -> int | None:
    """How many results a run will bring, when the rows can be counted without reading."""
    rows = row_count(samples)
    if rows is None:
        return None
    metrics = run.metrics if metrics is None else metrics
    chosen = 1 if isinstance(metrics, str) or not isinstance(metrics, Sequence) else len(metrics)
    return rows * chosen * run.iterations


def _resolved(metrics: str | Metric | Sequence[str | Metric], run: RunConfig) -> list[Metric]:
    """Metrics by name, made with the run's settings (its rubrics, weights, abstention
    phrases…), and metric objects as they are."""
    if isinstance(metrics, str) or not isinstance(metrics, Sequence):
        metrics = [metrics]  # one name ("faithfulness" is not seven one-letter names)
    chosen = [run.resolved_metrics([m])[0] if isinstance(m, str) else m for m in metrics]
    if not chosen:  # a run of no metric would measure nothing, and say nothing of it
        raise no_metric_error(metrics)
    return chosen


def _stopped_by(exc: BaseException) -> tuple[str, str]:
    """The run's status and error when ``exc`` stopped it."""
    if isinstance(exc, JudgeFatalError):
        return "failed", str(exc)
    if isinstance(exc, KeyboardInterrupt | asyncio.CancelledError):
        return "interrupted", "the run was interrupted"
    return "failed", f"{type(exc).__name__}: {exc}"


def _summarize(
    records: Iterable[ResultRecord],
    metrics: Sequence[str],
    bad_rows: int,
    thresholds: Mapping[str, float] | None,
    price: Pricing,
) -> dict[str, Any]:
    builder = SummaryBuilder(metrics, thresholds)
    for record in records:
        builder.add(record)
    summary = builder.build(bad_rows=bad_rows)
    if summary["cost"]["total_usd"] is None:  # say whose price is missing
        summary["cost"]["unpriced_models"] = list(price.unpriced())
    return summary


def _per_million(price: Price | None) -> dict[str, float] | None:
    return (
        None
        if price is None
        else {"input": price.input_per_million, "output": price.output_per_million}
    )


def _manifest(
    models: Models,
    metrics: Sequence[Metric],
    price: Pricing,
    dataset_path: str | None,
    settings: Mapping[str, Any],
) -> dict[str, Any]:
    """``run.json`` as the run starts: what ran, on what, with which prompts and settings."""
    return {
        "veracity_version": __version__,
        "python": platform.python_version(),
        "judge": _describe_judge(models, metrics),
        "embedder": models.embedder.describe() if models.embedder else None,
        "bert_scorer": models.bert_scorer.describe() if models.bert_scorer else None,
        "metrics": [m.name for m in metrics],
        "settings": dict(settings),
        "price_per_million_tokens": _per_million(price.own),
        **(
            {
                "claims_price_per_million_tokens": {
                    n: _per_million(p) for n, p in price.others.items()
                }
            }
            if price.others
            else {}
        ),
        "dataset": _describe_dataset(dataset_path),
        "started_at": timestamp(),
    }


def _describe_dataset(path: str | None) -> dict[str, Any]:
    if path is None:
        return {"path": None, "sha256": None}
    sha256, size = dataset_identity(path)
    # The size lets a later run tell a dataset grown by appended rows from a changed one.
    return {"path": path, "sha256": sha256, "bytes": size}


def _describe_judge(models: Models, metrics: Sequence[Metric]) -> dict[str, Any]:
    judge: dict[str, Any] = {"name": models.judge.name, **models.judge.describe()}
    if "prompts" in judge:  # a judge that prompts also renders the run's own rubrics
        rubrics = [rubric_template(m.rubric) for m in metrics if isinstance(m, RubricMetric)]
        judge["prompts"] = {**judge["prompts"], **{t.id: t.fingerprint for t in rubrics}}
    return judge
