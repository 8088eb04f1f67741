"""The metrics run with the offline judge: same result schema as with an LLM judge."""

from __future__ import annotations

from typing import Any

import pytest

from veracity import aevaluate
from veracity.config import RunConfig
from veracity.embeddings import LocalEmbedder
from veracity.judges.offline import OfflineJudge
from veracity.metrics.faithfulness import grounded_share
from veracity.types import ResultRecord, Status

ANSWER = "The Eiffel Tower was completed in 1889. It was designed by Thomas Edison."
SAMPLE = {
    "id": "eiffel",
    "question": "When was the Eiffel Tower completed, and who designed it?",
    "contexts": [
        "Bananas are rich in potassium and grow in tropical climates.",
        "The Eiffel Tower was completed in 1889 for the World's Fair in Paris. "
        "It was designed by the engineering company of Gustave Eiffel.",
    ],
    "answer": ANSWER,
    "reference": "The tower was completed in 1889 and was designed by Gustave Eiffel's company.",
}
METRICS = [
    "faithfulness",
    "context_precision",
    "context_recall",
    "answer_relevance",
    "answer_classification",
    "factual_accuracy",
]


async def run(embedder: LocalEmbedder) -> dict[str, ResultRecord]:
    result = await aevaluate(
        [SAMPLE], METRICS, OfflineJudge(embedder), config=RunConfig(embedder=embedder)
    )
    return {record.metric: record for record in result.results}


async def test_every_metric_ends_with_a_score_or_an_honest_status(
    local_embedder: LocalEmbedder,
) -> None:
    results = await run(local_embedder)
    assert set(results) == set(METRICS)
    for record in results.values():
        assert record.usage.calls == 0 and record.reason

    faithfulness = results["faithfulness"]
    assert faithfulness.status is Status.SCORED
    assert faithfulness.details["supported_share"] == 0.5
    claims = faithfulness.details["claims"]
    assert claims[0]["verdict"] == "supported" and "1889" in claims[0]["evidence"]
    # "It was designed by …": no pronoun resolution offline, so the alignment is weak and
    # the unknown name makes it not supported rather than contradicted.
    assert claims[1]["verdict"] == "not_enough_info"
    assert "Edison" in claims[1]["reason"] and "Gustave Eiffel" in claims[1]["evidence"]
    # Each claim carries the judge's P(supported); the score is their mean, the expected
    # share of supported claims (SPEC §2), which ranks answers where supported / claims ties.
    probabilities = [c["p_supported"] for c in claims]
    assert probabilities[0] > 0.5 > probabilities[1] >= 0.0
    assert faithfulness.score == pytest.approx(sum(probabilities) / 2)
    assert faithfulness.details["scored_by"] == "p_supported"
    texts = [c["claim"] for c in claims]
    assert faithfulness.details["expected_grounded_share"] == round(
        grounded_share(ANSWER, texts, probabilities), 4
    )

    precision = results["context_precision"]
    assert [c["relevant"] for c in precision.details["chunks"]] == [False, True]
    assert precision.score == 0.5

    recall = results["context_recall"]
    assert recall.status is Status.SCORED and recall.score == 1.0

    relevance = results["answer_relevance"]
    assert relevance.details["method"] == "judge_rating"
    assert relevance.details["fallback_because"] == "this judge writes no questions"
    assert relevance.score is not None and relevance.score > 0.3

    assert results["answer_classification"].details["classification"] == "wrong"

    factual = results["factual_accuracy"]
    assert factual.status is Status.UNSUPPORTED_BY_JUDGE and factual.score is None
    assert "needs an LLM judge" in factual.reason


async def faithfulness_and_class(
    samples: list[dict[str, Any]], embedder: LocalEmbedder
) -> dict[tuple[str, str], ResultRecord]:
    """Faithfulness and answer classification by the offline judge, by (sample, metric)."""
    result = await aevaluate(
        samples,
        ["faithfulness", "answer_classification"],
        OfflineJudge(embedder),
        config=RunConfig(embedder=embedder),
    )
    return {(r.sample_id, r.metric): r for r in result.results}


async def test_a_wrong_bare_no_is_a_claim_checked_not_a_perfect_score(
    local_embedder: LocalEmbedder,
) -> None:
    context = "Insulin is produced by the beta cells of the pancreas."
    asked = "Is insulin produced by the pancreas?"
    samples = [
        {
            "id": "wrong",
            "question": asked,
            "contexts": [context],
            "answer": "No.",
            "reference": "Yes, by its beta cells.",
        },
        {
            "id": "right",
            "question": asked,
            "contexts": [context],
            "answer": "Yes.",
            "reference": "Yes",
        },
    ]
    got = await faithfulness_and_class(samples, local_embedder)
    wrong, right = got["wrong", "faithfulness"], got["right", "faithfulness"]
    assert wrong.status is Status.SCORED and right.status is Status.SCORED
    assert [c["claim"] for c in wrong.details["claims"]] == [f"No, {asked[0].lower()}{asked[1:]}"]
    assert wrong.score is not None and right.score is not None
    assert wrong.score < 0.5 < right.score
    assert got["wrong", "answer_classification"].details["classification"] == "wrong"
    assert got["right", "answer_classification"].details["classification"] == "correct"


async def test_a_wrong_short_reply_is_contradicted_where_a_passage_answers_its_question(
    local_embedder: LocalEmbedder,
) -> None:
    # "Paris" is in the contexts, so alone it was supported at 0.99: a wrong answer read
    # from a trace scored near perfect. The passage that answers the question says Berlin.
    contexts = ["Berlin is the capital of Germany.", "Paris is the capital of France."]
    asked = "What is the capital of Germany?"
    samples = [
        {"id": i, "question": asked, "contexts": contexts, "answer": a, "reference": "Berlin"}
        for i, a in (("wrong", "Paris."), ("right", "Berlin."), ("it", "The capital is Paris."))
    ] + [
        # across two facts (a clause that describes): the reply is judged alone, as before
        {"id": "hop", "question": "Who leads the country whose capital is Berlin?",
         "contexts": [*contexts, "Friedrich Merz leads Germany."], "answer": "Friedrich Merz."},
    ]  # fmt: skip
    got = await faithfulness_and_class(samples, local_embedder)
    for wrong in ("wrong", "it"):
        record = got[wrong, "faithfulness"]
        assert record.score is not None and record.score <= 0.05, record.reason
        (claim,) = record.details["claims"]
        assert claim["verdict"] == "contradicted"
        assert "Berlin is the capital of Germany." in claim["reason"] and "paris" in claim["reason"]
        assert claim["claim"].endswith(f"(asked: {asked})")
        assert got[wrong, "answer_classification"].details["classification"] == "wrong"
    right = got["right", "faithfulness"]
    assert right.score is not None and right.score >= 0.9
    assert got["right", "answer_classification"].details["classification"] == "correct"
    hop = got["hop", "faithfulness"]
    assert hop.score is not None and hop.score >= 0.9
    assert [c["claim"] for c in hop.details["claims"]] == ["Friedrich Merz."]


async def test_a_yes_to_a_question_about_two_things_must_hold_for_each(
    local_embedder: LocalEmbedder,
) -> None:
    contexts = [
        "The Velvet Harbours are a Canadian indie rock band formed in Vancouver in 1997.",
        "Copper Lanterns is an American rock band formed in Nashville in 1999.",
    ]
    american = "Are both The Velvet Harbours and Copper Lanterns American rock bands?"
    rock = "Are The Velvet Harbours and Copper Lanterns both rock bands?"
    samples = [
        {"id": f"{name}-{answer}", "question": question, "contexts": contexts, "answer": answer}
        for name, question in (("american", american), ("rock", rock))
        for answer in ("Yes.", "No.")
    ]
    result = await aevaluate(
        samples,
        ["faithfulness"],
        OfflineJudge(local_embedder),
        config=RunConfig(embedder=local_embedder),
    )
    score = {r.sample_id: r.score for r in result.results}
    # Only one of the two is American: a yes is wrong, and a no right, whatever the other says.
    assert score["american-Yes."] is not None and score["american-Yes."] < 0.5
    assert score["american-No."] is not None and score["american-No."] > 0.5
    # Both are rock bands, each in its own passage.
    assert score["rock-Yes."] is not None and score["rock-Yes."] > 0.5
    assert score["rock-No."] is not None and score["rock-No."] < 0.5
    reason = next(r for r in result.results if r.sample_id == "american-Yes.").details["claims"][0][
        "reason"
    ]
    assert "The Velvet Harbours American rock bands" in reason


async def test_a_sameness_no_context_states_is_never_supported(
    local_embedder: LocalEmbedder,
) -> None:
    # Both facts are there, but word alignment cannot tell whether they agree.
    contexts = [
        "Robert Fleischman is an American singer, once with Journey.",
        "Jimmy Barnes is an Australian rock singer, born in Glasgow.",
    ]
    asked = "Do Robert Fleischman and Jimmy Barnes have the same nationality?"
    samples = [
        {"id": "yes", "question": asked, "contexts": contexts, "answer": "Yes."},
        {"id": "no", "question": asked, "contexts": contexts, "answer": "No."},
        {
            "id": "said",
            "question": "Who are they?",
            "contexts": contexts,
            "answer": "Robert Fleischman and Jimmy Barnes have the same nationality.",
        },
    ]
    result = await aevaluate(
        samples,
        ["faithfulness"],
        OfflineJudge(local_embedder),
        config=RunConfig(embedder=local_embedder),
    )
    claims = {r.sample_id: r.details["claims"][0] for r in result.results}
    assert claims["yes"]["verdict"] != "supported" and claims["yes"]["p_supported"] < 0.5
    assert claims["said"]["verdict"] != "supported" and claims["said"]["p_supported"] < 0.5
    assert "says the two are the same" in claims["said"]["reason"]
    # A right "no" is not called contradicted by the two facts' words.
    assert claims["no"]["verdict"] != "contradicted"
