"""The runner on a Ray cluster: worker actors score batches of samples, the driver commits
every result as its batch comes back.

The driver streams the dataset, keeps a bounded number of batches in flight (awaiting
Ray's object refs) and hands each result to ``on_result`` (the run's store) the moment
its batch returns. Each worker actor unpickles the run's models at its first batch of the
run and loads the local ones (the offline judge, embedders, BERTScore) on first use; the
limiter and the response cache are shared (:mod:`veracity.runner.ray_shared`). A worker
that dies is restarted by Ray, which sends its unfinished batches again; nothing is
committed twice, the store being keyed by result. A driver already connected to Ray
keeps its workers for its next run (:mod:`veracity.runner.ray_pool`).
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import logging
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import ray
from ray.exceptions import RayActorError, RayTaskError

from veracity.chat.cache import CachedModel
from veracity.judges import Judge
from veracity.judges.rechat import chat_of, decisions_of
from veracity.metrics import Metric, Models
from veracity.runner.engine import (
    Bad,
    DoneLookup,
    Job,
    ResultSink,
    score_job,
    todo_jobs,
)
from veracity.runner.errors import ExecutorError
from veracity.runner.ray_pool import Workers, end_workers, give_back, take_workers
from veracity.runner.ray_shared import Handle, SharedActors, settle_writes, unship
from veracity.transport.errors import first_error
from veracity.types import ResultRecord, Sample

# A batch is at most this many (sample, iteration) jobs: larger ones amortise the cost of
# a Ray call (about a millisecond) and lose more when a worker dies.
MAX_BATCH = 8
# How often Ray restarts a worker that died, and sends its unfinished batches again.
WORKER_RESTARTS = 3
Scored = list[tuple[ResultRecord, int]]


class ScoringWorker:
    """One worker: the batches it is sent to score, with the models and metrics of the
    run each batch is from (workers are kept for the next run, :mod:`.ray_pool`)."""

    def __init__(self) -> None:
        # By run: the models and metrics its batches are scored with, until it finishes.
        self._runs: dict[str, tuple[Models, dict[str, Metric]]] = {}

    def alive(self) -> bool:
        return True

    async def score(self, run: str, shipped: bytes, jobs: Sequence[Job]) -> Scored:
        """Every result of ``jobs``, once their replies are in the response cache.
        ``shipped`` (the run's models and metrics) comes with every batch: a worker Ray
        restarted after a crash has nothing but what its calls bring."""
        if run not in self._runs:  # no await before it is set: the first batches race
            models, metrics = unship(shipped)
            self._runs[run] = (models, {metric.name: metric for metric in metrics})
        models, by_name = self._runs[run]
        scored: Scored = []

        def keep(record: ResultRecord, position: int) -> None:
            scored.append((record, position))

        try:
            async with asyncio.TaskGroup() as tasks:
                for job in jobs:
                    tasks.create_task(score_job(job, models, by_name, keep))
        except BaseExceptionGroup as group:
            raise first_error(group) from None
        await settle_writes()
        return scored

    async def finish(self, run: str) -> None:
        """Close ``run``'s models (their clients), if this worker holds them."""
        held = self._runs.pop(run, None)
        if held is not None:
            await held[0].aclose()


async def run_metrics_on_ray(
    items: Iterable[Sample | Bad],
    metrics: Sequence[Metric],
    models: Models,
    *,
    on_result: ResultSink,
    on_bad_row: Callable[[Bad], None],
    iterations: int = 1,
    done: DoneLookup | None = None,
    address: str | None = None,
) -> None:
    """:func:`~veracity.runner.run_metrics` on Ray: one worker actor per CPU free in
    the cluster when it starts, the workers a connected process kept from its last run
    counted free and used (:func:`~veracity.runner.ray_pool.warm_workers`). ``address``
    is the cluster's; without one, ``RAY_ADDRESS`` if set, else a local Ray instance,
    started for the run and stopped after it. A process already connected to Ray runs on
    that connection.

    The in-flight bound is the local runner's: twice the judge's concurrency in jobs,
    in batches of up to :data:`MAX_BATCH`, at least two batches a worker so none waits
    between batches.
    """
    if iterations < 1:
        raise ValueError(f"iterations must be at least 1, got {iterations}")
    window = 2 * models.judge.concurrency

    def batch_size(workers: int) -> int:
        return max(1, min(MAX_BATCH, window // (2 * workers)))

    def in_flight(workers: int) -> int:
        return max(2 * workers, window // batch_size(workers))

    with _connected(address) as own_instance:
        shared = SharedActors()
        workers: Workers | None = None
        finished = False
        try:
            workers = await take_workers(_start_workers, lambda count: in_flight(count) + 1)
            pool = workers.handles
            run = uuid.uuid4().hex[:8]
            # The models travel as bytes (small: the local ones travel as how to make
            # them), put in Ray's store once and sent with every batch.
            shipped = ray.put(shared.ship((models, list(metrics))))
            jobs = todo_jobs(items, metrics, iterations, on_bad_row, done)
            await _drive(
                _batches(jobs, batch_size(len(pool))),
                functools.partial(_score_on, run, shipped),
                pool,
                in_flight(len(pool)),
                on_result,
            )
            await asyncio.gather(*(worker.finish.remote(run) for worker in pool))
            _adopt_negotiated(models.judge)
            finished = True
        except (RayTaskError, RayActorError) as exc:
            raise _cause(exc) from None
        finally:
            if workers is not None and finished and not own_instance:
                give_back(workers)
            elif workers is not None:  # a failed run's may still be scoring its batches
                end_workers(workers)
            shared.close()


def _start_workers(count: int, max_concurrency: int) -> list[Handle]:
    worker = ray.remote(ScoringWorker)
    tag = uuid.uuid4().hex[:8]
    return [
        worker.options(
            name=f"veracity-worker-{tag}-{index}",
            num_cpus=1,
            max_concurrency=max_concurrency,
            max_restarts=WORKER_RESTARTS,
            max_task_retries=WORKER_RESTARTS,
        ).remote()
        for index in range(count)
    ]


def _score_on(run: str, shipped: ray.ObjectRef[bytes], worker: Handle, jobs: list[Job]) -> Any:
    return worker.score.remote(run, shipped, jobs)


async def _drive(
    batches: Iterator[list[Job]],
    score: Callable[[Handle, list[Job]], Any],
    pool: Sequence[Handle],
    in_flight: int,
    on_result: ResultSink,
) -> None:
    """Send ``batches`` to the least busy worker, at most ``in_flight`` at once, and hand
    each result to ``on_result`` as its batch returns."""
    pending: dict[asyncio.Future[Scored], int] = {}
    busy = [0] * len(pool)

    async def collect() -> None:
        finished, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        for future in finished:
            busy[pending.pop(future)] -= 1
            for record, position in future.result():
                on_result(record, position)

    try:
        for jobs in batches:
            while len(pending) >= in_flight:
                await collect()
            worker = busy.index(min(busy))
            busy[worker] += 1
            pending[asyncio.wrap_future(score(pool[worker], jobs).future())] = worker
        while pending:
            await collect()
    finally:
        for future in pending:
            future.cancel()


def _adopt_negotiated(judge: Judge) -> None:
    """What the workers learnt of the endpoint (the options it rejected, a decision
    server's limits), read back from the cache they told it to: the run's manifest
    describes the judge as it ended."""
    for model in (chat_of(judge), decisions_of(judge)):
        if isinstance(model, CachedModel):
            model.adopt_learnt()


def _batches(jobs: Iterator[Job], size: int) -> Iterator[list[Job]]:
    while batch := list(itertools.islice(jobs, size)):
        yield batch


def _cause(exc: BaseException) -> BaseException:
    """What failed on a worker, as it was raised there; a worker lost for good as an
    :class:`ExecutorError`."""
    while isinstance(exc, RayTaskError) and isinstance(exc.cause, BaseException):
        exc = exc.cause
    if isinstance(exc, RayActorError):
        return ExecutorError(
            f"a Ray worker died {WORKER_RESTARTS + 1} times ({exc.error_msg}); every result "
            "finished so far is kept: run the same command again to go on"
        )
    return exc


@contextmanager
def _connected(address: str | None) -> Iterator[bool]:
    """Connected to Ray; whether the Ray instance (or connection) is the run's own,
    ended after it."""
    if ray.is_initialized():
        yield False
        return
    try:
        ray.init(address=address, logging_level=logging.ERROR)
    except (ConnectionError, ValueError, RuntimeError) as exc:
        where = f"at {address}" if address else "(RAY_ADDRESS, or a local instance)"
        raise ExecutorError(f"cannot start or join a Ray cluster {where}: {exc}") from None
    try:
        yield True
    finally:
        ray.shutdown()
