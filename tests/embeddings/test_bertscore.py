"""BERTScore on the real all-MiniLM-L6-v2."""

from __future__ import annotations

import asyncio

import pytest

from tests.embeddings.conftest import Loaded
from veracity.embeddings import MINILM_NUM_LAYERS, BertScorer, default_minilm_dir


def test_loading_is_offline_with_the_chosen_layer(loaded_bert_scorer: Loaded) -> None:
    assert loaded_bert_scorer.attempts == []
    scorer: BertScorer = loaded_bert_scorer.model
    assert scorer.num_layers == MINILM_NUM_LAYERS == 6
    assert scorer.describe()["num_layers"] == 6
    assert scorer.name == "bertscore/all-MiniLM-L6-v2@6"


async def test_identical_strings_score_one(bert_scorer: BertScorer) -> None:
    [(precision, recall, f1)] = await bert_scorer.score(
        ["The Eiffel Tower is in Paris."], ["The Eiffel Tower is in Paris."]
    )
    assert f1 == pytest.approx(1.0, abs=1e-4)
    assert precision == pytest.approx(1.0, abs=1e-4)
    assert recall == pytest.approx(1.0, abs=1e-4)


async def test_paraphrase_beats_unrelated_and_scores_are_in_range(
    bert_scorer: BertScorer,
) -> None:
    reference = "The capital of France is Paris."
    results = await bert_scorer.score(
        ["Paris is the capital city of France.", "My dog likes chasing tennis balls."],
        [reference, reference],
    )
    (_, _, paraphrase), (_, _, unrelated) = results
    assert paraphrase > unrelated + 0.1
    for scores in results:
        assert all(isinstance(value, float) and 0.0 <= value <= 1.0 for value in scores)


async def test_empty_sides_score_zero_without_the_model(bert_scorer: BertScorer) -> None:
    calls = bert_scorer.score_calls
    results = await bert_scorer.score(["", "an answer", "   "], ["a reference", "", "x"])
    assert results == [(0.0, 0.0, 0.0)] * 3
    assert bert_scorer.score_calls == calls
    # Text the tokenizer reduces to nothing is empty too (the model is asked, scores 0).
    assert await bert_scorer.score(["\u200b"], ["a reference"]) == [(0.0, 0.0, 0.0)]


async def test_concurrent_calls_are_micro_batched(bert_scorer: BertScorer) -> None:
    calls = bert_scorer.score_calls
    pairs = [
        (f"Answer {i}: water boils at 100 degrees.", f"Water boils at {i} C.") for i in range(12)
    ]
    results = await asyncio.gather(*(bert_scorer.score([c], [r]) for c, r in pairs))
    assert bert_scorer.score_calls - calls <= 2
    together = await bert_scorer.score([c for c, _ in pairs], [r for _, r in pairs])
    for [alone], joint in zip(results, together, strict=True):
        assert alone == pytest.approx(joint, abs=1e-4)  # each caller got its own pair


async def test_candidates_and_references_must_pair_up(bert_scorer: BertScorer) -> None:
    with pytest.raises(ValueError, match="2 candidates but 1 references"):
        await bert_scorer.score(["a", "b"], ["c"])


def test_layers_are_checked_and_default_to_all_for_a_user_model() -> None:
    with pytest.raises(ValueError, match=r"num_layers must be in 0\.\.6"):
        BertScorer(num_layers=7)
    scorer = BertScorer(default_minilm_dir())
    assert scorer.num_layers == 6
    assert scorer.describe()["sha256"] is None
