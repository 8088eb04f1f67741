"""The Python API: ``evaluate`` a dataset, get an :class:`EvaluationResult` back."""

from typing import TYPE_CHECKING

from veracity._lazy import lazy_exports

__all__ = ["EvaluationResult", "aevaluate", "evaluate"]

if TYPE_CHECKING:
    from veracity.evaluation.result import EvaluationResult
    from veracity.evaluation.run import aevaluate, evaluate
else:
    __getattr__, __dir__ = lazy_exports(__name__, __file__, __all__)
