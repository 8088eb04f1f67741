"""The offline judge's other answers: claims, chunks, relevance, classification, and the
questions it cannot answer honestly."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import pytest

from veracity.embeddings import LocalEmbedder
from veracity.judges import Judge, JudgeOutcome
from veracity.judges.offline import FEATURES, OfflineJudge, OfflineParams, ParamsError, load_params
from veracity.types import AnswerClass, Rubric, RubricDimension

QUESTION = "When was the Eiffel Tower completed?"
EIFFEL = "The Eiffel Tower was completed in 1889 for the World's Fair in Paris."
BANANAS = "Bananas are rich in potassium and grow in tropical climates."
REFERENCE = "The Eiffel Tower was completed in 1889."


def test_it_is_a_judge_with_a_name_a_description_and_no_cost(judge: OfflineJudge) -> None:
    typed: Judge = judge
    # The default model, given or made by the judge, is one judge.
    assert typed.name == OfflineJudge().name == f"offline/minilm-{judge.params.version}"
    described = typed.describe()
    assert described["provider"] == "offline"
    assert described["params_fingerprint"] == judge.params.fingerprint
    assert described["embedder"]["model"] == "all-MiniLM-L6-v2"
    assert typed.concurrency >= 1
    with pytest.raises(ValueError, match="concurrency"):
        OfflineJudge(concurrency=0)


def test_the_shipped_parameters_are_small_fitted_and_match_the_features() -> None:
    raw = resources.files("veracity.judges.offline").joinpath("params.json").read_bytes()
    assert len(raw) < 5_000
    data = json.loads(raw)
    params = load_params()
    assert params.features == FEATURES == tuple(data["features"])
    assert 0 < params.t_support < 1 and 0 < params.t_align <= 1 and 0 < params.t_chunk < 1
    assert set(data["fit"]["held_out"]) == {"halueval_qa", "wice_dev", "begin_dev"}
    assert len(params.fingerprint) == 16


def test_parameters_for_other_features_are_refused(local_embedder: LocalEmbedder) -> None:
    with pytest.raises(ParamsError, match="refit"):
        OfflineJudge(local_embedder, OfflineParams.untrained(("cosine",)))
    with pytest.raises(ParamsError, match="same length"):
        OfflineParams("x", ("a", "b"), (0.0,), (1.0,), (0.0,), 0.0, 0.5, 0.7, 0.5)


async def test_extract_claims_costs_nothing_and_notes_its_limits(judge: OfflineJudge) -> None:
    found = await judge.extract_claims(QUESTION, "Hi! It was completed in 1889. I don't know more.",
                                       iteration=0)  # fmt: skip
    assert found.value == ("It was completed in 1889.",)
    assert found.usage.calls == 0
    assert any("pronouns" in note for note in found.notes)


async def test_judge_chunks_ranks_a_relevant_chunk_above_an_unrelated_one(
    judge: OfflineJudge,
) -> None:
    outcome = await judge.judge_chunks(QUESTION, [BANANAS, EIFFEL, ""], REFERENCE, iteration=0)
    assert outcome.value is not None
    bananas, eiffel, empty = outcome.value
    assert [c.index for c in outcome.value] == [0, 1, 2]
    assert eiffel.relevant and not bananas.relevant and not empty.relevant
    assert eiffel.relevance > bananas.relevance
    assert "cosine" in eiffel.reason and empty.reason == "the chunk is empty"


async def test_rate_relevance_from_the_embeddings(judge: OfflineJudge) -> None:
    on_topic = await judge.rate_relevance(QUESTION, "It was completed in 1889.", iteration=0)
    off_topic = await judge.rate_relevance(QUESTION, BANANAS, iteration=0)
    refusal = await judge.rate_relevance(QUESTION, "I don't know.", iteration=0)
    assert on_topic.value and off_topic.value and refusal.value
    assert on_topic.value.score > off_topic.value.score + 0.3
    assert refusal.value.score == 0.0 and "abstains" in refusal.value.reason
    assert "longer than the model reads" not in on_topic.value.reason
    long = await judge.rate_relevance(QUESTION, "It was completed in 1889. " * 60, iteration=0)
    assert long.value and "the answer is longer than the model reads" in long.value.reason


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        ("The tower was finished in 1889.", AnswerClass.CORRECT),
        ("The tower was completed in 1925.", AnswerClass.WRONG),
        ("The Eiffel Tower was never completed.", AnswerClass.WRONG),
        ("I don't know.", AnswerClass.DONT_KNOW),
    ],
)
async def test_classify_answer_against_the_reference(
    judge: OfflineJudge, answer: str, label: AnswerClass
) -> None:
    outcome = await judge.classify_answer(QUESTION, answer, REFERENCE, iteration=0)
    assert outcome.value is not None
    assert outcome.value.label is label, outcome.value.reason
    assert outcome.value.reason


async def test_what_needs_an_llm_is_unsupported_never_faked(judge: OfflineJudge) -> None:
    dimension = RubricDimension(
        name="tone", description="tone", levels={i: str(i) for i in range(1, 6)}
    )
    outcomes: list[JudgeOutcome[Any]] = [
        await judge.generate_questions("It was 1889.", [EIFFEL], n=3, iteration=0),
        await judge.grade_factual_accuracy(QUESTION, "1889", REFERENCE, iteration=0),
        await judge.score_rubric(
            Rubric(name="r", dimensions=(dimension,)), QUESTION, "1889", [EIFFEL], iteration=0
        ),
    ]
    for outcome in outcomes:
        assert outcome.unsupported and outcome.value is None and not outcome.ok
        assert outcome.error
    assert "cannot write questions" in str(outcomes[0].error)
    assert "needs an LLM judge" in str(outcomes[1].error)
