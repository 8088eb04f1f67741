"""What each metric declares of its score, and what agreement with people reads from it."""

from __future__ import annotations

from veracity.metrics.registry import (
    METRICS,
    label_targets,
    metrics_of_target,
    probability_metrics,
    resolve_metrics,
)


def test_scores_that_read_as_probabilities() -> None:
    # Shares of supported claims or attributable statements, a correct/wrong verdict.
    assert probability_metrics() == {
        "faithfulness",
        "answer_classification",
        "context_recall",
        "context_precision",
        "citation_recall",
        "citation_precision",
    }


def test_a_correctness_label_measures_the_metrics_against_a_reference() -> None:
    assert set(metrics_of_target("correctness")) == {
        "answer_classification",
        "factual_accuracy",
        "semantic_similarity",
        "bert_score",
    }
    assert metrics_of_target("faithfulness") == ("faithfulness",)
    assert label_targets() == {*METRICS, "correctness"}


def test_every_metric_declares_both() -> None:
    for metric in resolve_metrics(list(METRICS)):
        assert isinstance(type(metric).reads_as_probability, bool), metric.name
        assert isinstance(type(metric).measures_correctness, bool), metric.name
