"""Metrics by name, as ``--metrics`` names them."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from veracity.metrics.base import Metric
from veracity.metrics.faithfulness import Faithfulness

METRICS: dict[str, Callable[[], Metric]] = {"faithfulness": Faithfulness}

# Named by the spec, not built yet: asking for one is an honest error, not a silent skip.
PLANNED = (
    "context_precision",
    "context_recall",
    "answer_relevance",
    "ragas_score",
    "factual_accuracy",
    "semantic_similarity",
    "bert_score",
    "answer_classification",
    "rubric",
)


class UnknownMetricError(ValueError):
    pass


def resolve_metrics(names: Sequence[str]) -> list[Metric]:
    """Metric objects for ``names`` (de-duplicated, order kept)."""
    metrics: list[Metric] = []
    for name in dict.fromkeys(n.strip() for n in names if n.strip()):
        if name in METRICS:
            metrics.append(METRICS[name]())
        elif name in PLANNED:
            raise UnknownMetricError(f"metric {name!r} is not available in this version yet")
        else:
            raise UnknownMetricError(f"unknown metric {name!r}; available: {', '.join(METRICS)}")
    if not metrics:
        raise UnknownMetricError("no metric named")
    return metrics
