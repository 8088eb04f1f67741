"""The formulas of SPEC §2, against hand-computed values."""

from __future__ import annotations

import pytest

from veracity.metrics import DEFAULT_WEIGHTS, average_precision, grade, weighted_mean


def test_ragas_seed_example_renormalises_over_scored_parts() -> None:
    # faithfulness 1.0, precision unscored, recall 1.0, answer relevance 0.8327 -> 0.9373
    score, used = weighted_mean(
        {
            "faithfulness": 1.0,
            "context_precision": None,
            "context_recall": 1.0,
            "answer_relevance": 0.8327,
        },
        DEFAULT_WEIGHTS,
    )
    assert score == pytest.approx(0.9373, abs=5e-5)
    assert used == pytest.approx(
        {"faithfulness": 0.375, "context_recall": 0.25, "answer_relevance": 0.375}
    )


def test_ragas_with_every_part_is_the_plain_weighted_mean() -> None:
    score, used = weighted_mean(
        {"faithfulness": 0.5, "context_precision": 1.0, "context_recall": 0.0,
         "answer_relevance": 1.0},
        DEFAULT_WEIGHTS,
    )  # fmt: skip
    assert score == pytest.approx(0.3 * 0.5 + 0.2 * 1.0 + 0.2 * 0.0 + 0.3 * 1.0)
    assert sum(used.values()) == pytest.approx(1.0)


def test_ragas_with_nothing_scored_is_unscored() -> None:
    assert weighted_mean({"faithfulness": None}, DEFAULT_WEIGHTS) == (None, {})


@pytest.mark.parametrize(
    ("relevant", "expected"),
    [
        ([True, True, True], 1.0),
        ([False, False], 0.0),
        ([], 0.0),
        ([True, False, True], (1 / 1 + 2 / 3) / 2),
        ([False, True], (1 / 2) / 1),
        ([False, False, True, True], (1 / 3 + 2 / 4) / 2),
    ],
)
def test_average_precision_is_rank_aware(relevant: list[bool], expected: float) -> None:
    assert average_precision(relevant) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("score", "letter"),
    [(100, "A"), (80, "A"), (79.99, "B"), (60, "B"), (40, "C"), (20, "D"), (19.9, "E"), (0, "E")],
)
def test_grade_boundaries(score: float, letter: str) -> None:
    assert grade(score) == letter


def test_configured_ragas_weights_are_used() -> None:
    from veracity.metrics import RagasScore, resolve_metrics

    [metric] = resolve_metrics(["ragas_score"], ragas_weights={"faithfulness": 1.0})
    assert isinstance(metric, RagasScore)
    assert metric.weights == {"faithfulness": 1.0}
    with pytest.raises(ValueError, match="weights"):
        resolve_metrics(["ragas_score"], ragas_weights={"speed": 1.0})
