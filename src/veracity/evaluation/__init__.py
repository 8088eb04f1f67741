"""The Python API: ``evaluate`` a dataset, get an :class:`EvaluationResult` back."""

from veracity.evaluation.result import EvaluationResult
from veracity.evaluation.run import aevaluate, evaluate

__all__ = ["EvaluationResult", "aevaluate", "evaluate"]
