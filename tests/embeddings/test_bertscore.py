"""BERTScore on the real all-MiniLM-L6-v2."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace

import pytest

from tests.embeddings.conftest import Loaded
from veracity.embeddings import MINILM_NUM_LAYERS, BertScorer, Scores, default_minilm_dir
from veracity.embeddings.bertscore_windows import encode


def test_loading_is_offline_with_the_chosen_layer(loaded_bert_scorer: Loaded) -> None:
    assert loaded_bert_scorer.attempts == []
    scorer: BertScorer = loaded_bert_scorer.model
    assert scorer.num_layers == MINILM_NUM_LAYERS == 6
    assert scorer.describe()["num_layers"] == 6
    assert scorer.name == "bertscore/all-MiniLM-L6-v2@6"


async def test_identical_strings_score_one(bert_scorer: BertScorer) -> None:
    [scores] = await bert_scorer.score(
        ["The Eiffel Tower is in Paris."], ["The Eiffel Tower is in Paris."]
    )
    assert scores.f1 == pytest.approx(1.0, abs=1e-4)
    assert scores.precision == pytest.approx(1.0, abs=1e-4)
    assert scores.recall == pytest.approx(1.0, abs=1e-4)
    assert scores.windows == (1, 1)


async def test_paraphrase_beats_unrelated_and_scores_are_in_range(
    bert_scorer: BertScorer,
) -> None:
    reference = "The capital of France is Paris."
    results = await bert_scorer.score(
        ["Paris is the capital city of France.", "My dog likes chasing tennis balls."],
        [reference, reference],
    )
    paraphrase, unrelated = results
    assert paraphrase.f1 > unrelated.f1 + 0.1
    for scores in results:
        values = (scores.precision, scores.recall, scores.f1)
        assert all(isinstance(value, float) and 0.0 <= value <= 1.0 for value in values)


async def test_empty_sides_score_zero_without_the_model(bert_scorer: BertScorer) -> None:
    calls = bert_scorer.score_calls
    results = await bert_scorer.score(["", "an answer", "   "], ["a reference", "", "x"])
    assert results == [Scores(0.0, 0.0, 0.0, windows=(0, 0))] * 3
    assert bert_scorer.score_calls == calls
    # Text the tokenizer reduces to nothing is empty too (the model is asked, scores 0).
    assert await bert_scorer.score(["\u200b"], ["a reference"]) == [Scores(0.0, 0.0, 0.0)]


async def test_concurrent_calls_are_micro_batched(bert_scorer: BertScorer) -> None:
    calls = bert_scorer.score_calls
    pairs = [
        (f"Answer {i}: water boils at 100 degrees.", f"Water boils at {i} C.") for i in range(12)
    ]
    results = await asyncio.gather(*(bert_scorer.score([c], [r]) for c, r in pairs))
    assert bert_scorer.score_calls - calls <= 2
    together = await bert_scorer.score([c for c, _ in pairs], [r for _, r in pairs])
    for [alone], joint in zip(results, together, strict=True):
        assert alone.f1 == pytest.approx(joint.f1, abs=1e-5)  # each caller got its own pair


async def test_candidates_and_references_must_pair_up(bert_scorer: BertScorer) -> None:
    with pytest.raises(ValueError, match="2 candidates but 1 references"):
        await bert_scorer.score(["a", "b"], ["c"])


def test_layers_are_checked_and_default_to_all_for_a_user_model() -> None:
    with pytest.raises(ValueError, match=r"num_layers must be in 0\.\.6"):
        BertScorer(num_layers=7)
    scorer = BertScorer(default_minilm_dir())
    assert scorer.num_layers == 6
    assert scorer.describe()["sha256"] is None


async def test_texts_that_fit_score_as_the_bert_score_library_scores_them(
    bert_scorer: BertScorer,
) -> None:
    pairs = [
        ("Paris is the capital city of France.", "The capital of France is Paris."),
        ("Water boils at 100 degrees Celsius at sea level.", "At sea level water boils at 100 C."),
        ("My dog likes chasing tennis balls.", "The capital of France is Paris."),
    ]
    library = bert_scorer._ensure_scorer()
    for candidate, reference in pairs:
        [ours] = await bert_scorer.score([candidate], [reference])
        # One pair at a time: in a batch the library lets padding stand in for a match.
        precision, recall, f1 = (float(t[0]) for t in library.score([candidate], [reference]))
        assert (ours.precision, ours.recall, ours.f1) == pytest.approx(
            (precision, recall, f1), abs=1e-5
        )
        assert ours.windows == (1, 1)


LONG_PAGE = " ".join(
    f"Chapter {i} tells how the river passes the mill at dawn and the ferry waits."
    for i in range(60)
)
FACT = "The secret ingredient of the soup is cardamom from the market."


async def test_a_text_over_the_limit_is_scored_whole_without_stderr_noise(
    bert_scorer: BertScorer, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    library = bert_scorer._ensure_scorer()
    tokenizer = library._tokenizer
    assert len(tokenizer.encode(LONG_PAGE, add_special_tokens=False, verbose=False)) > 900
    # Forget that transformers warned about a long text before, so a warning would show.
    tokenizer.deprecation_warnings.clear()
    capfd.readouterr()
    with caplog.at_level(logging.WARNING):
        at_end, at_start = await bert_scorer.score(
            [FACT, FACT], [f"{LONG_PAGE} {FACT}", f"{FACT} {LONG_PAGE}"]
        )
    # transformers warns through logging (to the stderr it found at import), the library
    # by print: neither speaks.
    assert [record.getMessage() for record in caplog.records] == []
    assert capfd.readouterr().err == ""
    assert at_end.windows == at_start.windows == (1, 3)
    # Truncated, the page loses its tail and the fact with it: the fact scores as against
    # the page without it. Read whole, where the fact sits matters little.
    [truncated, *_] = (float(t[0]) for t in library.score([FACT], [f"{LONG_PAGE} {FACT}"]))
    [without, *_] = (float(t[0]) for t in library.score([FACT], [LONG_PAGE]))
    assert truncated == pytest.approx(without, abs=1e-5)
    assert at_end.precision > truncated + 0.3
    assert at_end.precision == pytest.approx(at_start.precision, abs=0.15)


async def test_tokens_keep_their_own_vectors_across_windows(bert_scorer: BertScorer) -> None:
    library = bert_scorer._ensure_scorer()
    layout = bert_scorer._layout
    assert layout is not None
    text = " ".join(
        f"Item {i}: the {w} sat on the mat." for i, w in enumerate(["cat", "dog", "owl"] * 5)
    )
    [whole] = encode(library._model, library._tokenizer, layout, [text], 8)
    [windowed] = encode(library._model, library._tokenizer, replace(layout, window=24), [text], 8)
    assert whole is not None and windowed is not None
    assert whole.windows == 1 and windowed.windows > 4
    assert windowed.vectors.shape == whole.vectors.shape
    same = (whole.vectors * windowed.vectors).sum(dim=1)
    shifted = (whole.vectors[1:] * windowed.vectors[:-1]).sum(dim=1)
    # Each token's vector from its window is close to its vector in the whole text, and
    # closer than its neighbour's: the windows are stitched back in the right places.
    assert float(same.mean()) > 0.8
    assert float(same.mean()) > float(shifted.mean()) + 0.2
