"""The offline judge under the prompt budget (issue 14 item 13): the budget bounds the
text one question reads, so a 50 MB answer is ``invalid_input`` at once instead of being
segmented and embedded for minutes."""

from __future__ import annotations

from typing import Any

import pytest

from veracity import Status, evaluate
from veracity.judges.offline import OfflineJudge
from veracity.prompts import PromptBudget
from veracity.testing.embedders import HashingEmbedder
from veracity.text import analysis

pytest.importorskip("pysbd")


class _RecordedSegmenter:
    """pysbd's segmenter, noting the length of every text it is given."""

    def __init__(self, segmenter: Any, lengths: list[int]) -> None:
        self._segmenter = segmenter
        self._lengths = lengths

    def segment(self, text: str) -> Any:
        self._lengths.append(len(text))
        return self._segmenter.segment(text)


def test_a_50_mb_answer_is_invalid_input_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    segmented: list[int] = []
    segmenter = _RecordedSegmenter(analysis._segmenter(), segmented)
    monkeypatch.setattr(analysis, "_segmenter", lambda: segmenter)
    embedder = HashingEmbedder()
    answer = "Paris is in France. " * 2_621_440
    sample = {"id": "big", "question": "Where?", "answer": answer,
              "contexts": ["Paris is in France."], "reference": "Paris is in France."}  # fmt: skip
    result = evaluate([sample], ["faithfulness", "answer_classification"], OfflineJudge(embedder))
    # Neither segmented nor embedded: what took minutes is not done at all.
    assert all(length < len(answer) for length in segmented), segmented
    assert embedder.calls == 0
    for record in result.results:
        assert record.status is Status.INVALID_INPUT, record
        assert "tokens (52,4" in record.reason and "prompt budget of 32,000" in record.reason


def test_its_contexts_are_cut_to_fit_when_asked() -> None:
    sample = {"id": "s", "question": "Where is Paris?", "answer": "Paris is in France.",
              "contexts": ["Paris is in France.", "filler. " * 25_000]}  # fmt: skip
    whole = evaluate([sample], ["faithfulness"], OfflineJudge(HashingEmbedder()))
    assert whole.results[0].status is Status.INVALID_INPUT

    judge = OfflineJudge(
        HashingEmbedder(), prompt_budget=PromptBudget(4000, truncate_contexts=True)
    )
    (record,) = evaluate([sample], ["faithfulness"], judge).results
    assert record.status is Status.SCORED
    assert any("context(s) 2 (200,000) cut to" in note for note in record.details["notes"])
    assert judge.describe()["prompt_budget"] == {"tokens": 4000, "truncate_contexts": True}
