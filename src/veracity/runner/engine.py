"""Runs metrics over samples: async, a bounded window of samples in flight."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeVar

from veracity.metrics import Metric, Models, SampleWork
from veracity.types import MetricResult, ResultRecord, Sample

# Whatever the dataset yields that is not a sample (a bad row): the runner passes it on.
Bad = TypeVar("Bad")
# A finished result, and the position of its sample in the dataset (for stable order).
ResultSink = Callable[[ResultRecord, int], None]
# The metrics already done for a sample and iteration (a resumed run skips them).
DoneLookup = Callable[[Sample, int], set[str]]


def to_record(sample: Sample, iteration: int, result: MetricResult) -> ResultRecord:
    return ResultRecord(
        **dict(result),
        sample_id=sample.id,
        system=sample.system,
        question_type=sample.question_type,
        iteration=iteration,
    )


async def run_metrics(
    items: Iterable[Sample | Bad],
    metrics: Sequence[Metric],
    models: Models,
    *,
    on_result: ResultSink,
    on_bad_row: Callable[[Bad], None],
    iterations: int = 1,
    max_in_flight: int | None = None,
    done: DoneLookup | None = None,
) -> None:
    """Score every sample of ``items`` with every metric, ``iterations`` times.

    ``items`` yields samples and, interleaved, anything else (a bad row), which goes to
    ``on_bad_row``. Only ``max_in_flight`` samples (default: twice the judge's
    concurrency, so the judge always has the next call waiting) are held at once, so a
    dataset of any size streams through. Results go to ``on_result`` the moment they
    exist. ``done`` names the metrics a resumed run already has for a sample and
    iteration; only the others are scored. A :class:`~veracity.judges.JudgeFatalError`,
    or an error while reading ``items``, stops the run and is raised as it is.
    """
    if iterations < 1:
        raise ValueError(f"iterations must be at least 1, got {iterations}")
    window = max_in_flight or 2 * models.judge.concurrency
    by_name = {metric.name: metric for metric in metrics}
    jobs = _jobs(items, iterations, on_bad_row)

    async def worker() -> None:
        for position, sample, iteration in jobs:
            finished = done(sample, iteration) if done is not None else set()
            todo = [metric for metric in metrics if metric.name not in finished]
            if not todo:
                continue
            work = SampleWork(sample, models, iteration, by_name)
            async with asyncio.TaskGroup() as tasks:
                for metric in todo:
                    tasks.create_task(_score(metric, work, position, on_result))

    try:
        async with asyncio.TaskGroup() as workers:
            for _ in range(window):
                workers.create_task(worker())
    except BaseExceptionGroup as group:
        # The first error stops the run (a fatal judge error, a file broken halfway, a
        # bug); the caller gets it as it was raised, not nested in task groups.
        raise _first_leaf(group) from None


def _first_leaf(group: BaseExceptionGroup[BaseException]) -> BaseException:
    exc: BaseException = group
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return exc


def _jobs(
    items: Iterable[Sample | Bad], iterations: int, on_bad_row: Callable[[Bad], None]
) -> Iterator[tuple[int, Sample, int]]:
    for position, item in enumerate(items):
        if isinstance(item, Sample):
            for iteration in range(iterations):
                yield position, item, iteration
        else:
            on_bad_row(item)


async def _score(metric: Metric, work: SampleWork, position: int, on_result: ResultSink) -> None:
    # Through the shared memo: a composite metric (ragas_score) reuses this very result.
    result = await work.result_of(metric.name, lambda: metric)
    on_result(to_record(work.sample, work.iteration, result), position)
