"""Worker actors kept warm between the Ray runs of one driver process.

Starting a worker costs a process and its imports, seconds on a loaded machine: a process
already connected to Ray (a notebook that called ``ray.init``) keeps its run's workers
for the next run, which sends them its own models. The pool holds its workers' CPUs until
:func:`release_ray_workers`, ``ray.shutdown`` or the driver's exit (its actors end with
it); a Ray instance a run started for itself is stopped after it, and its workers with it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import ray
from ray.exceptions import GetTimeoutError, RayActorError

from veracity.runner.ray_shared import Handle

# How long a kept worker may take to answer before it counts as lost.
_ALIVE_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class _Pool:
    connection: tuple[str, str]  # the workers' Ray connection (_connection())
    workers: tuple[Handle, ...]
    max_concurrency: int


_kept: list[_Pool] = []


def warm_workers(
    make: Callable[[int, int], list[Handle]], calls_at_once: Callable[[int], int]
) -> list[Handle]:
    """The run's workers, each taking ``calls_at_once(count)`` calls at once, new ones
    from ``make(count, calls_at_once(count))``: one per CPU free in the cluster, those the
    kept workers hold counted free. Kept workers that died are replaced one for one (the
    CPU a dead one held is free now, or soon: not counted again)."""
    connection = _connection()
    kept = _kept[0] if _kept and _kept[0].connection == connection else None
    alive: list[Handle] = []
    dead: list[Handle] = []
    for worker in kept.workers if kept else ():
        (alive if _answers(worker) else dead).append(worker)
    free: dict[str, float] = ray.available_resources()  # type: ignore[no-untyped-call]
    if kept is not None and dead:
        count = len(kept.workers)
        for worker in dead:
            ray.kill(worker)  # dead, or too slow to answer: ended for sure
    else:
        count = max(1, int(free.get("CPU", 0)) + len(alive))
    max_concurrency = calls_at_once(count)
    if kept is not None and count == len(kept.workers) and kept.max_concurrency >= max_concurrency:
        workers = [*alive, *make(len(dead), kept.max_concurrency)] if dead else alive
        _kept[:] = [_Pool(connection, tuple(workers), kept.max_concurrency)]
        return workers
    release_ray_workers()
    workers = make(count, max_concurrency)
    _kept.append(_Pool(connection, tuple(workers), max_concurrency))
    return workers


def release_ray_workers() -> None:
    """End the workers kept for the next Ray run, giving their CPUs back to the cluster."""
    pools, _kept[:] = list(_kept), []
    if not ray.is_initialized():
        return  # they ended with the connection
    connection = _connection()
    for pool in pools:
        if pool.connection == connection:
            for worker in pool.workers:
                ray.kill(worker)


def _connection() -> tuple[str, str]:
    """This driver's Ray connection: its node (a new Ray instance has new node ids) and
    job (each ``ray.init`` is a new one); workers of an earlier connection ended with it."""
    context = ray.get_runtime_context()
    return context.get_node_id(), context.get_job_id()


def _answers(worker: Handle) -> bool:
    try:
        ray.get(worker.alive.remote(), timeout=_ALIVE_TIMEOUT_S)
    except (RayActorError, GetTimeoutError):
        return False
    return True
