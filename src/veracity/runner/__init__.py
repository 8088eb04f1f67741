"""The runner: metrics over samples, concurrently, results out as they finish; in this
process or on a Ray cluster."""

from typing import TYPE_CHECKING

from veracity._lazy import lazy_exports

__all__ = [
    "EXECUTORS",
    "Executor",
    "ExecutorError",
    "checked_executor",
    "metrics_runner",
    "release_ray_workers",
    "run_metrics",
    "to_record",
]

if TYPE_CHECKING:
    from veracity.runner.engine import run_metrics, to_record
    from veracity.runner.errors import EXECUTORS, Executor, ExecutorError
    from veracity.runner.executors import checked_executor, metrics_runner
    from veracity.runner.ray_pool import release_ray_workers
else:
    __getattr__, __dir__ = lazy_exports(__name__, __file__, __all__)
