"""Worker actors kept warm between the Ray runs of one driver process.

Starting a worker costs a process and its imports, seconds on a loaded machine: a process
already connected to Ray (a notebook that called ``ray.init``) keeps a finished run's
workers for its next run, which sends them its own models. A run takes the kept workers
out while it runs (two runs at once never share them: a failed one ends its own) and
gives them back when it finishes, unless another run of the driver is still going (its
workers may be waiting for the CPUs these hold: they are ended). Kept workers hold their CPUs until
:func:`release_ray_workers`, ``ray.shutdown`` or the driver's exit (its actors end with
it); a Ray instance a run started for itself is stopped after it, and its workers with it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import ray
from ray.exceptions import RayActorError

from veracity.runner.ray_shared import Handle

# How long a kept worker may take to answer before it counts as lost.
_ALIVE_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Workers:
    """A run's workers and the calls each takes at once."""

    handles: tuple[Handle, ...]
    max_concurrency: int
    # The Ray connection they belong to (:func:`_connection`).
    connection: tuple[str, str]


_kept: list[Workers] = []
# How many runs hold workers, by connection.
_running: dict[tuple[str, str], int] = {}


async def take_workers(
    make: Callable[[int, int], list[Handle]], calls_at_once: Callable[[int], int]
) -> Workers:
    """Workers for a run, each taking ``calls_at_once(count)`` calls at once: the kept
    ones (taken out: no other run gets them meanwhile), new ones from ``make(count,
    calls_at_once(count))`` where there are none. One per CPU free in the cluster, the
    kept workers' counted free; kept workers that died are replaced one for one (the CPU a
    dead one held is free now, or soon: not counted again). The run ends with
    :func:`give_back` or :func:`end_workers`."""
    connection = _connection()
    kept = next((w for w in _kept if w.connection == connection), None)
    if kept is not None:
        _kept.remove(kept)
        try:
            answering = await _answering(kept.handles)
        except BaseException:
            _end(kept.handles)  # neither kept nor used: not left holding CPUs
            raise
    alive = [w for w, ok in zip(kept.handles, answering, strict=True) if ok] if kept else []
    dead = [w for w, ok in zip(kept.handles, answering, strict=True) if not ok] if kept else []
    _end(dead)  # dead, or too slow to answer: ended for sure
    if kept is not None and dead:
        count = len(kept.handles)
    else:
        free: dict[str, float] = ray.available_resources()  # type: ignore[no-untyped-call]
        count = max(1, int(free.get("CPU", 0)) + len(alive))
    wanted = calls_at_once(count)
    if kept is not None and count == len(kept.handles) and kept.max_concurrency >= wanted:
        workers = Workers(
            (*alive, *make(len(dead), kept.max_concurrency)), kept.max_concurrency, connection
        )
    else:
        _end(alive)
        workers = Workers(tuple(make(count, wanted)), wanted, connection)
    _running[connection] = _running.get(connection, 0) + 1
    return workers


def give_back(workers: Workers) -> None:
    """Keep a finished run's ``workers`` for the next run of this connection; end them
    while another run is going, or another run's are kept already."""
    others = _done(workers.connection)
    if others or any(w.connection == workers.connection for w in _kept):
        _end(workers.handles)
    else:
        _kept.append(workers)


def end_workers(workers: Workers) -> None:
    """End a run's workers: it failed, and they may still be scoring its batches."""
    _done(workers.connection)
    _end(workers.handles)


def _done(connection: tuple[str, str]) -> int:
    """A run of ``connection`` is over: how many others still are."""
    left = _running.get(connection, 1) - 1
    if left > 0:
        _running[connection] = left
    else:
        _running.pop(connection, None)
    return left


def release_ray_workers() -> None:
    """End the workers kept for the next Ray run, giving their CPUs back to the cluster."""
    pools, _kept[:] = list(_kept), []
    if not ray.is_initialized():
        return  # they ended with the connection
    connection = _connection()
    for pool in pools:
        if pool.connection == connection:
            _end(pool.handles)


def _end(handles: Sequence[Handle]) -> None:
    for worker in handles:
        ray.kill(worker)


def _connection() -> tuple[str, str]:
    """This driver's Ray connection: its node (a new Ray instance has new node ids) and
    job (each ``ray.init`` is a new one); workers of an earlier connection ended with it."""
    context = ray.get_runtime_context()
    return context.get_node_id(), context.get_job_id()


async def _answering(handles: Sequence[Handle]) -> list[bool]:
    """Whether each worker answers, all asked at once, within :data:`_ALIVE_TIMEOUT_S`."""

    async def answers(worker: Handle) -> bool:
        try:
            await asyncio.wait_for(
                asyncio.wrap_future(worker.alive.remote().future()), _ALIVE_TIMEOUT_S
            )
        except (RayActorError, TimeoutError):
            return False
        return True

    return list(await asyncio.gather(*(answers(worker) for worker in handles)))
