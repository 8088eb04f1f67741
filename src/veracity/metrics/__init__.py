"""Metrics: each scores one sample from what the judge (or a local model) says about it."""

from typing import TYPE_CHECKING

from veracity._lazy import lazy_exports

__all__ = [
    "COMPONENTS",
    "DEFAULT_WEIGHTS",
    "METRICS",
    "AnswerClassification",
    "AnswerRelevance",
    "BertScore",
    "Citations",
    "ContextPrecision",
    "ContextRecall",
    "FactualAccuracy",
    "Faithfulness",
    "Metric",
    "Models",
    "Need",
    "RagasScore",
    "RubricMetric",
    "SampleWork",
    "SemanticSimilarity",
    "UnknownMetricError",
    "average_precision",
    "grade",
    "judge_error",
    "no_metric_error",
    "resolve_metrics",
    "weighted_mean",
]

if TYPE_CHECKING:
    from veracity.metrics.answer_classification import AnswerClassification
    from veracity.metrics.answer_relevance import AnswerRelevance
    from veracity.metrics.base import Metric, Models, Need, SampleWork, judge_error
    from veracity.metrics.citation import Citations
    from veracity.metrics.context_precision import ContextPrecision, average_precision
    from veracity.metrics.context_recall import ContextRecall
    from veracity.metrics.factual_accuracy import FactualAccuracy, grade
    from veracity.metrics.faithfulness import Faithfulness
    from veracity.metrics.ragas_score import COMPONENTS, DEFAULT_WEIGHTS, RagasScore, weighted_mean
    from veracity.metrics.registry import (
        METRICS,
        UnknownMetricError,
        no_metric_error,
        resolve_metrics,
    )
    from veracity.metrics.rubric import RubricMetric
    from veracity.metrics.similarity import BertScore, SemanticSimilarity
else:
    __getattr__, __dir__ = lazy_exports(__name__, __file__, __all__)
