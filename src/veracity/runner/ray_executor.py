"""The runner on a Ray cluster: worker actors score batches of samples, the driver commits
every result as its batch comes back.

The driver streams the dataset, keeps a bounded number of batches in flight (awaiting
Ray's object refs) and hands each result to ``on_result`` (the run's store) the moment
its batch returns. Each worker actor gets the run's models once, when it starts, and
loads the local ones (the offline judge, embedders, BERTScore) on first use; the
limiter and the response cache are shared (:mod:`veracity.runner.ray_shared`). A worker
that dies is restarted by Ray, which sends its unfinished batches again; nothing is
committed twice, the store being keyed by result.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager

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
    """One worker: the run's models and metrics, and the batches it is sent to score."""

    def __init__(self, shipped: bytes) -> None:
        self.models: Models
        self.models, metrics = unship(shipped)
        self.metrics = {metric.name: metric for metric in metrics}

    async def score(self, jobs: Sequence[Job]) -> Scored:
        """Every result of ``jobs``, once their replies are in the response cache."""
        scored: Scored = []

        def keep(record: ResultRecord, position: int) -> None:
            scored.append((record, position))

        try:
            async with asyncio.TaskGroup() as tasks:
                for job in jobs:
                    tasks.create_task(score_job(job, self.models, self.metrics, keep))
        except BaseExceptionGroup as group:
            raise first_error(group) from None
        await settle_writes()
        return scored

    async def close(self) -> None:
        await self.models.aclose()


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
    the cluster when it starts. ``address`` is the cluster's; without one, ``RAY_ADDRESS``
    if set, else a local Ray instance, started for the run and stopped after it. A process
    already connected to Ray runs on that connection.

    The in-flight bound is the local runner's: twice the judge's concurrency in jobs,
    in batches of up to :data:`MAX_BATCH`, at least two batches a worker so none waits
    between batches.
    """
    if iterations < 1:
        raise ValueError(f"iterations must be at least 1, got {iterations}")
    with _connected(address):
        free: dict[str, float] = ray.available_resources()  # type: ignore[no-untyped-call]
        workers = max(1, int(free.get("CPU", 0)))
        window = 2 * models.judge.concurrency
        batch = max(1, min(MAX_BATCH, window // (2 * workers)))
        in_flight = max(2 * workers, window // batch)
        shared = SharedActors()
        pool: list[Handle] = []
        try:
            run = uuid.uuid4().hex[:8]
            worker = ray.remote(ScoringWorker)
            # Each worker gets the models as its argument (small: the local ones travel as
            # how to make them), so Ray can start it again from that alone.
            shipped = shared.ship((models, list(metrics)))
            pool = [
                worker.options(
                    name=f"veracity-worker-{run}-{index}",
                    num_cpus=1,
                    max_concurrency=in_flight + 1,
                    max_restarts=WORKER_RESTARTS,
                    max_task_retries=WORKER_RESTARTS,
                ).remote(shipped)
                for index in range(workers)
            ]
            jobs = todo_jobs(items, metrics, iterations, on_bad_row, done)
            await _drive(_batches(jobs, batch), pool, in_flight, on_result)
            await asyncio.gather(*(worker.close.remote() for worker in pool))
            _adopt_negotiated(models.judge)
        except (RayTaskError, RayActorError) as exc:
            raise _cause(exc) from None
        finally:
            for worker in pool:
                ray.kill(worker)
            shared.close()


async def _drive(
    batches: Iterator[list[Job]],
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
            pending[asyncio.wrap_future(pool[worker].score.remote(jobs).future())] = worker
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
def _connected(address: str | None) -> Iterator[None]:
    if ray.is_initialized():
        yield
        return
    try:
        ray.init(address=address, logging_level=logging.ERROR)
    except (ConnectionError, ValueError, RuntimeError) as exc:
        where = f"at {address}" if address else "(RAY_ADDRESS, or a local instance)"
        raise ExecutorError(f"cannot start or join a Ray cluster {where}: {exc}") from None
    try:
        yield
    finally:
        ray.shutdown()
