"""Where a run's metrics are scored: in this process, or on a Ray cluster."""

from __future__ import annotations

import functools
import importlib.util
import os
import socket
from collections.abc import Callable, Coroutine, Iterable, Sequence
from typing import Any, Protocol

from veracity.metrics import Metric, Models
from veracity.runner.engine import DoneLookup, ResultSink, run_metrics
from veracity.runner.errors import EXECUTORS, Executor, ExecutorError


class MetricsRunner(Protocol):
    def __call__(
        self,
        items: Iterable[Any],
        metrics: Sequence[Metric],
        models: Models,
        *,
        on_result: ResultSink,
        on_bad_row: Callable[[Any], None],
        iterations: int = 1,
        done: DoneLookup | None = None,
    ) -> Coroutine[Any, Any, None]: ...


def checked_executor(name: str) -> Executor:
    """``name`` as an executor, if it is one and can run here."""
    for executor in EXECUTORS:
        if name == executor:
            if executor == "ray" and importlib.util.find_spec("ray") is None:
                raise ExecutorError("the ray executor needs Ray: pip install 'veracity[ray]'")
            return executor
    raise ValueError(f"unknown executor {name!r}: expected {' or '.join(EXECUTORS)}")


def metrics_runner(executor: str, ray_address: str | None = None) -> MetricsRunner:
    """The runner of ``executor``: :func:`run_metrics` here, or on Ray (at ``ray_address``,
    else ``RAY_ADDRESS``, else a local instance)."""
    if checked_executor(executor) == "local":
        if ray_address is not None:
            raise ValueError("ray_address is for the ray executor")
        return run_metrics
    _check_reachable(ray_address or os.environ.get("RAY_ADDRESS"))
    # Imported here: Ray is an optional extra, and heavy to import.
    from veracity.runner.ray_executor import run_metrics_on_ray

    return functools.partial(run_metrics_on_ray, address=ray_address)


def _check_reachable(address: str | None) -> None:
    """Fail now when nothing listens at a cluster's ``HOST:PORT``: Ray itself would retry
    for minutes. Other forms (``auto``, ``ray://…``) are left to Ray."""
    host, sep, port = (address or "").rpartition(":")
    if not sep or "://" in host or not port.isdigit():
        return
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as exc:
        raise ExecutorError(
            f"no Ray cluster answers at {address}: {exc.strerror or exc} (start one with "
            "ray start --head, or check the address)"
        ) from None
