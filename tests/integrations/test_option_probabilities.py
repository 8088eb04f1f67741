"""What goes with a score sent back onto a trace: the probability the judge gave each
option, wherever its details hold them, bounded, and nothing where it gave none."""

from __future__ import annotations

from typing import Any

from veracity.integrations.traced import (
    MAX_PROBABILITY_ITEMS,
    option_probabilities,
    probability_metadata,
)

THREE_WAY = {"supported": 0.7, "contradicted": 0.2, "not_enough_info": 0.1}


def test_a_decision_models_claims_keep_all_three_options() -> None:
    details = {
        "claims": [
            {"claim": "Paris is in France.", "verdict": "supported", "p_supported": 0.7,
             "probabilities": THREE_WAY},
            {"claim": "It rains.", "verdict": "not_enough_info", "p_supported": 0.05},
            {"claim": "Hard verdict only.", "verdict": "supported"},
        ]
    }  # fmt: skip
    assert option_probabilities(details) == {
        "claims": [
            {"claim": "Paris is in France.", "probabilities": THREE_WAY},
            {"claim": "It rains.", "probabilities": {"supported": 0.05}},
        ]
    }


def test_chunks_answers_and_levels() -> None:
    details: dict[str, Any] = {
        "chunks": [{"index": 0, "p_relevant": 0.9}, {"index": 1, "relevant": False}],
        "probabilities": {"correct": 0.6, "wrong": 0.3, "dont_know": 0.1},
        "dimensions": [{"name": "faithfulness", "probabilities": {"4": 0.5, "5": 0.5}}],
        "criteria": {"correctness": {"score": 75, "probabilities": {"75": 1.0}}},
    }
    assert option_probabilities(details) == {
        "chunks": [{"index": 0, "p_relevant": 0.9}],
        "answer": {"correct": 0.6, "wrong": 0.3, "dont_know": 0.1},
        "levels": {"faithfulness": {"4": 0.5, "5": 0.5}, "correctness": {"75": 1.0}},
    }


def test_nothing_where_the_judge_gave_no_probability() -> None:
    assert probability_metadata({"claims": [{"claim": "x", "verdict": "supported"}]}) == {}
    assert probability_metadata({}) == {}


def test_damaged_details_give_no_invented_probability() -> None:
    details: dict[str, Any] = {
        "claims": "not a list",
        "chunks": [{"index": 0, "p_relevant": 1.5}, {"index": 1, "p_relevant": True}],
        "probabilities": {"correct": "high"},
        "dimensions": [{"name": "x", "probabilities": {"1": float("nan")}}],
    }
    assert option_probabilities(details) == {}


def test_many_claims_are_bounded() -> None:
    claims = [{"claim": "c" * 1_000, "p_supported": 0.5} for _ in range(500)]
    sent = option_probabilities({"claims": claims})["claims"]
    assert len(sent) == MAX_PROBABILITY_ITEMS
    assert all(len(c["claim"]) <= 200 for c in sent)
