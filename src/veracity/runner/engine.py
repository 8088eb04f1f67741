"""Runs metrics over samples: async, a bounded window of samples in flight."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from veracity.metrics import Metric, Models, SampleWork
from veracity.transport.errors import first_error
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
    # One generator shared by every worker: each takes the next job as it frees up.
    jobs = todo_jobs(items, metrics, iterations, on_bad_row, done)

    async def worker() -> None:
        for job in jobs:
            await score_job(job, models, by_name, on_result)

    try:
        async with asyncio.TaskGroup() as workers:
            for _ in range(window):
                workers.create_task(worker())
    except BaseExceptionGroup as group:
        # The first error stops the run (a fatal judge error, a file broken halfway, a
        # bug); the caller gets it as it was raised, not nested in task groups.
        raise first_error(group) from None


@dataclass(frozen=True, slots=True)
class Job:
    """One sample in one iteration, with the metrics still to score on it; ``position`` is
    the sample's place in the dataset (for stable order)."""

    position: int
    sample: Sample
    iteration: int
    metrics: tuple[str, ...]


def todo_jobs(
    items: Iterable[Sample | Bad],
    metrics: Sequence[Metric],
    iterations: int,
    on_bad_row: Callable[[Bad], None],
    done: DoneLookup | None = None,
) -> Iterator[Job]:
    """The jobs of ``items``: every sample in every iteration with the metrics ``done`` does
    not have yet (none done: all of them); bad rows go to ``on_bad_row`` as they are met."""
    for position, item in enumerate(items):
        if not isinstance(item, Sample):
            on_bad_row(item)
            continue
        for iteration in range(iterations):
            finished = done(item, iteration) if done is not None else set()
            todo = tuple(m.name for m in metrics if m.name not in finished)
            if todo:
                yield Job(position, item, iteration, todo)


async def score_job(
    job: Job, models: Models, metrics: Mapping[str, Metric], on_result: ResultSink
) -> None:
    """Score ``job``'s metrics (``metrics`` by name: all of the run's, so composites find
    theirs), each result to ``on_result`` the moment it exists."""
    work = SampleWork(job.sample, models, job.iteration, metrics)
    async with asyncio.TaskGroup() as tasks:
        for name in job.metrics:
            tasks.create_task(_score(metrics[name], work, job.position, on_result))


async def _score(metric: Metric, work: SampleWork, position: int, on_result: ResultSink) -> None:
    # Through the shared memo: a composite metric (ragas_score) reuses this very result.
    result = await work.result_of(metric.name, lambda: metric)
    on_result(to_record(work.sample, work.iteration, result), position)
