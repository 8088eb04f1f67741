"""The runner: metrics over samples, concurrently, results out as they finish; in this
process or on a Ray cluster."""

from veracity.runner.engine import run_metrics, to_record
from veracity.runner.executors import (
    EXECUTORS,
    Executor,
    ExecutorError,
    checked_executor,
    metrics_runner,
)

__all__ = [
    "EXECUTORS",
    "Executor",
    "ExecutorError",
    "checked_executor",
    "metrics_runner",
    "run_metrics",
    "to_record",
]
