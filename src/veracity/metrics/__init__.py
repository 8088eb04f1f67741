"""Metrics: each scores one sample from what the judge says about it."""

from veracity.metrics.base import Metric, SampleWork, judge_error
from veracity.metrics.faithfulness import Faithfulness
from veracity.metrics.registry import METRICS, UnknownMetricError, resolve_metrics

__all__ = [
    "METRICS",
    "Faithfulness",
    "Metric",
    "SampleWork",
    "UnknownMetricError",
    "judge_error",
    "resolve_metrics",
]
