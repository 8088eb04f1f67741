"""Metrics by name, as ``--metrics`` names them."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence

from veracity._suggest import did_you_mean
from veracity.metrics.answer_classification import AnswerClassification
from veracity.metrics.answer_relevance import AnswerRelevance
from veracity.metrics.base import Metric
from veracity.metrics.citation import Citations
from veracity.metrics.context_precision import ContextPrecision
from veracity.metrics.context_recall import ContextRecall
from veracity.metrics.factual_accuracy import FactualAccuracy
from veracity.metrics.faithfulness import Faithfulness
from veracity.metrics.ragas_score import RagasScore
from veracity.metrics.rubric import RubricMetric
from veracity.metrics.similarity import BertScore, SemanticSimilarity
from veracity.prompts import DEFAULT_ABSTENTION_PHRASES
from veracity.types import Rubric

METRICS: dict[str, Callable[[], Metric]] = {
    "faithfulness": Faithfulness,
    "context_precision": ContextPrecision,
    "context_recall": ContextRecall,
    "answer_relevance": AnswerRelevance,
    "ragas_score": RagasScore,
    "factual_accuracy": FactualAccuracy,
    "semantic_similarity": SemanticSimilarity,
    "bert_score": BertScore,
    "answer_classification": AnswerClassification,
    "rubric": RubricMetric,
    "citation_recall": Citations,
    "citation_precision": lambda: Citations("precision"),
}


#: What people label that no metric is named after: whether the answer is correct, which
#: every metric that scores the answer against a reference measures.
CORRECTNESS = "correctness"


@functools.cache
def _declared() -> dict[str, Metric]:
    return {name: make() for name, make in METRICS.items()}


def probability_metrics() -> frozenset[str]:
    """The metrics whose score reads as a probability that the answer is good."""
    return frozenset(name for name, m in _declared().items() if m.reads_as_probability)


def metrics_of_target(target: str) -> tuple[str, ...]:
    """The metrics a label of ``target`` measures: those that measure correctness for
    ``correctness``, else the metric of that name."""
    if target != CORRECTNESS:
        return (target,)
    return tuple(name for name, m in _declared().items() if m.measures_correctness)


def label_targets() -> frozenset[str]:
    """What people's labels may name wherever they appear: each metric, and correctness."""
    return frozenset({*METRICS, CORRECTNESS})


class UnknownMetricError(ValueError):
    pass


_AVAILABLE = f"{', '.join(METRICS)}, rubric:NAME"


def no_metric_error(given: Sequence[object]) -> UnknownMetricError:
    """The error of a run asked for no metric (it would measure nothing, silently)."""
    return UnknownMetricError(f"no metric named (given: {list(given)!r}); available: {_AVAILABLE}")


def resolve_metrics(
    names: Sequence[str],
    rubrics: Mapping[str, Rubric] | None = None,
    *,
    ragas_weights: Mapping[str, float] | None = None,
    abstention_phrases: Sequence[str] | None = None,
    citation_index_base: int = 1,
    conversation_support_counts: bool = True,
) -> list[Metric]:
    """Metric objects for ``names`` (de-duplicated, order kept). ``rubric:NAME`` is the
    user-defined rubric ``NAME`` from ``rubrics`` (the config file's); ``ragas_weights``
    replace the ragas score's default weights; ``abstention_phrases`` replace the default
    phrases of faithfulness and answer_classification; ``citation_index_base`` is what the
    citation metrics count context numbers from; ``conversation_support_counts`` whether
    faithfulness counts a claim the conversation supports as supported."""
    metrics: list[Metric] = []
    for name in dict.fromkeys(n.strip() for n in names if n.strip()):
        if name == "ragas_score" and ragas_weights:
            metrics.append(RagasScore(weights=dict(ragas_weights)))
        elif name == "faithfulness":
            phrases = (
                DEFAULT_ABSTENTION_PHRASES if abstention_phrases is None else abstention_phrases
            )
            metrics.append(
                Faithfulness(
                    abstention_phrases=tuple(phrases),
                    conversation_support_counts=conversation_support_counts,
                )
            )
        elif name == "answer_classification" and abstention_phrases is not None:
            metrics.append(AnswerClassification(abstention_phrases=tuple(abstention_phrases)))
        elif name in ("citation_recall", "citation_precision"):
            metrics.append(Citations(name.removeprefix("citation_"), citation_index_base))  # type: ignore[arg-type]
        elif name in METRICS:
            metrics.append(METRICS[name]())
        elif name.startswith("rubric:"):
            rubric = (rubrics or {}).get(name.removeprefix("rubric:"))
            if rubric is None:
                known = ", ".join(sorted(rubrics or {})) or "none defined"
                raise UnknownMetricError(
                    f"no rubric {name.removeprefix('rubric:')!r} in the config file ({known})"
                )
            metrics.append(RubricMetric(rubric))
        else:
            hint = did_you_mean(name, METRICS)
            raise UnknownMetricError(f"unknown metric {name!r}; {hint}available: {_AVAILABLE}")
    if not metrics:
        raise no_metric_error(names)
    return metrics
