"""The runner: metrics over samples, concurrently, results out as they finish."""

from veracity.runner.engine import run_metrics, to_record

__all__ = ["run_metrics", "to_record"]
