"""The metrics beyond faithfulness, with the scripted judge and a hashing embedder."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from tests.helpers import constant, make_sample
from veracity.chat import ScriptedChat
from veracity.embeddings import Scores
from veracity.judges import LLMJudge
from veracity.metrics import (
    AnswerClassification,
    AnswerRelevance,
    BertScore,
    ContextPrecision,
    ContextRecall,
    FactualAccuracy,
    Faithfulness,
    Metric,
    Models,
    RagasScore,
    RubricMetric,
    SampleWork,
    SemanticSimilarity,
)
from veracity.prompts import ChatMessage, OutputSpec
from veracity.testing.embedders import HashingEmbedder
from veracity.types import MetricResult, Rubric, RubricDimension, Sample, Status

Reply = str | Callable[[str], str]


def judge_replying(replies: Mapping[str, Reply | list[str]]) -> ScriptedChat:
    """A scripted chat model that answers each prompt template from ``replies``."""
    queues = {k: list(v) for k, v in replies.items() if isinstance(v, list)}

    def respond(messages: Sequence[ChatMessage], output: OutputSpec) -> str:
        prompt = next(m.content for m in reversed(messages) if m.role == "user")
        key = output.name
        if key in queues:
            return queues[key].pop(0)
        reply = replies[key]
        assert not isinstance(reply, list)
        return reply if isinstance(reply, str) else reply(prompt)

    return ScriptedChat(responder=respond)


def js(value: Any) -> str:
    return json.dumps(value)


def verdicts_for(*pairs: tuple[str, str]) -> str:
    return js(
        {"verdicts": [{"claim": c, "reason": "r", "evidence": "", "verdict": v} for c, v in pairs]}
    )


async def run(
    metrics: Sequence[Metric],
    sample: Sample,
    chat: ScriptedChat,
    embedder: HashingEmbedder | None = None,
) -> dict[str, MetricResult]:
    work = SampleWork(
        # The scripted verdicts quote no evidence: the evidence check is tested on its own.
        sample,
        Models(LLMJudge(chat, unfounded_support="flag"), embedder=embedder),
        0,
        {m.name: m for m in metrics},
    )
    return {m.name: await work.result_of(m.name, constant(m)) for m in metrics}


REF_SAMPLE = make_sample(
    answer="Paris is the capital of France.",
    contexts=("Berlin is in Germany.", "Paris is the capital of France.", "Cats purr."),
    reference="Paris is the capital of France. Paris is on the Seine.",
)


def chunks_reply(*relevant: bool) -> str:
    return js(
        {
            "chunks": [
                {"index": i, "reason": "r", "relevance": 90 if r else 5, "relevant": r}
                for i, r in enumerate(relevant, 1)
            ]
        }
    )


async def test_context_precision_is_average_precision_with_chunk_details() -> None:
    chat = judge_replying({"chunk_relevance": chunks_reply(False, True, False)})
    result = (await run([ContextPrecision()], REF_SAMPLE, chat))["context_precision"]
    assert result.status is Status.SCORED
    assert result.score == pytest.approx(0.5)
    assert result.details["relevant_fraction"] == pytest.approx(1 / 3)
    assert [c["relevant"] for c in result.details["chunks"]] == [False, True, False]
    assert [c["index"] for c in result.details["chunks"]] == [0, 1, 2]
    assert len(chat.calls) == 1
    assert "Paris is on the Seine" in chat.calls[0].prompt  # the reference is shown


async def test_context_precision_asks_again_for_skipped_chunks_only() -> None:
    first = js({"chunks": [{"index": 1, "reason": "r", "relevance": 90, "relevant": True}]})
    second = chunks_reply(True, False)  # the two chunks it skipped, renumbered 1..2
    chat = judge_replying({"chunk_relevance": [first, second]})
    result = (await run([ContextPrecision()], REF_SAMPLE, chat))["context_precision"]
    assert [c["relevant"] for c in result.details["chunks"]] == [True, True, False]
    assert result.score == pytest.approx(1.0)
    assert "Berlin" not in chat.calls[1].prompt
    assert "Cats purr" in chat.calls[1].prompt


async def test_context_precision_without_chunks_is_unscored() -> None:
    chat = judge_replying({})
    result = (await run([ContextPrecision()], make_sample(contexts=()), chat))["context_precision"]
    assert result.status is Status.NO_CONTEXTS and result.score is None
    assert chat.calls == []


async def test_recall_and_faithfulness_share_one_verification_call() -> None:
    chat = judge_replying(
        {
            "claim_extraction": lambda prompt: js(
                {"claims": ["Paris is the capital of France.", "Paris is on the Seine."]}
                if "Seine" in prompt
                else {"claims": ["Paris is the capital of France."]}
            ),
            "claim_verification": verdicts_for(
                ("Paris is the capital of France.", "supported"),
                ("Paris is on the Seine.", "not_enough_info"),
            ),
        }
    )
    results = await run([Faithfulness(), ContextRecall()], REF_SAMPLE, chat)
    assert results["faithfulness"].score == 1.0
    recall = results["context_recall"]
    assert recall.score == pytest.approx(0.5)
    assert [s["attributed"] for s in recall.details["statements"]] == [True, False]
    names = [c.output.name for c in chat.calls]
    assert names.count("claim_extraction") == 2  # answer claims, reference statements
    assert names.count("claim_verification") == 1  # one call verifies both, deduplicated
    verification = next(c for c in chat.calls if c.output.name == "claim_verification")
    assert verification.prompt.count("Paris is the capital of France.") == 2  # contexts + 1
    total = results["faithfulness"].usage.calls + recall.usage.calls
    assert total == 3  # shared work charged once


async def test_recall_edge_policies() -> None:
    no_ref = await run([ContextRecall()], make_sample(), judge_replying({}))
    assert no_ref["context_recall"].status is Status.MISSING_REFERENCE
    assert no_ref["context_recall"].score is None

    empty = judge_replying({"claim_extraction": js({"claims": []})})
    result = (await run([ContextRecall()], REF_SAMPLE, empty))["context_recall"]
    assert (result.status, result.score) == (Status.NO_CLAIMS, 1.0)

    no_ctx = judge_replying({"claim_extraction": js({"claims": ["A fact."]})})
    sample = make_sample(contexts=(), reference="A fact.")
    result = (await run([ContextRecall()], sample, no_ctx))["context_recall"]
    assert (result.status, result.score) == (Status.NO_CONTEXTS, 0.0)
    assert [c.output.name for c in no_ctx.calls] == ["claim_extraction"]


async def test_answer_relevance_by_generated_questions() -> None:
    question = "Tell me about Paris."
    chat = judge_replying(
        {
            "question_generation": js(
                {
                    "reason": "r",
                    "noncommittal": False,
                    "questions": [question, "Tell me about Paris?", "What is the weather?"],
                }
            )
        }
    )
    embedder = HashingEmbedder()
    result = (await run([AnswerRelevance()], make_sample(), chat, embedder))["answer_relevance"]
    sims = [q["similarity"] for q in result.details["questions"]]
    assert sims[0] == pytest.approx(1.0)
    assert all(0.0 <= s <= 1.0 for s in sims)
    assert result.score == pytest.approx(sum(sims) / 3)
    assert result.details["method"] == "generated_questions"
    assert len(chat.calls) == 1


async def test_noncommittal_answer_scores_zero() -> None:
    chat = judge_replying(
        {"question_generation": js({"reason": "evasive", "noncommittal": True, "questions": []})}
    )
    result = (await run([AnswerRelevance()], make_sample(), chat, HashingEmbedder()))[
        "answer_relevance"
    ]
    assert (result.score, result.details["noncommittal"]) == (0.0, True)


async def test_answer_relevance_falls_back_to_a_rating_and_says_why() -> None:
    chat = judge_replying({"relevance_rating": js({"reason": "on topic", "score": 80})})
    result = (await run([AnswerRelevance()], make_sample(), chat))["answer_relevance"]
    assert result.score == pytest.approx(0.8)
    assert result.details["method"] == "judge_rating"
    assert "no embedding model" in result.details["fallback_because"]

    broken = judge_replying(
        {
            "question_generation": ["junk", "more junk"],
            "relevance_rating": js({"reason": "ok", "score": 50}),
        }
    )
    result = (await run([AnswerRelevance()], make_sample(), broken, HashingEmbedder()))[
        "answer_relevance"
    ]
    assert result.score == pytest.approx(0.5)
    assert "question generation failed" in result.details["fallback_because"]


async def test_ragas_score_shares_components_with_the_run() -> None:
    chat = judge_replying(
        {
            "claim_extraction": js({"claims": ["Paris is the capital of France."]}),
            "claim_verification": verdicts_for(("Paris is the capital of France.", "supported")),
            "chunk_relevance": chunks_reply(False, True, False),
            "question_generation": js(
                {"reason": "r", "noncommittal": False, "questions": ["Tell me about Paris."] * 3}
            ),
        }
    )
    ragas = RagasScore()
    results = await run([Faithfulness(), ragas], REF_SAMPLE, chat, HashingEmbedder())
    score = results["ragas_score"]
    assert score.score == pytest.approx(0.3 * 1.0 + 0.2 * 0.5 + 0.2 * 1.0 + 0.3 * 1.0)
    assert score.details["components"]["context_precision"]["score"] == pytest.approx(0.5)
    assert len(chat.calls) <= 5
    names = [c.output.name for c in chat.calls]
    assert names.count("claim_verification") == 1
    # usage: faithfulness reports its own; ragas carries the rest, nothing twice
    assert results["faithfulness"].usage.calls + score.usage.calls == len(chat.calls)


async def test_factual_accuracy_weights_and_grade() -> None:
    reply = js(
        {
            "correctness": {"reasoning": "a", "score": 90},
            "completeness": {"reasoning": "b", "score": 50},
            "consistency": {"reasoning": "c", "score": 100},
        }
    )
    result = (
        await run([FactualAccuracy()], REF_SAMPLE, judge_replying({"factual_accuracy": reply}))
    )["factual_accuracy"]
    assert result.details["weighted_score_100"] == pytest.approx(0.5 * 90 + 0.3 * 50 + 0.2 * 100)
    assert result.score == pytest.approx(0.8)
    assert result.details["grade"] == "A"
    assert result.details["criteria"]["completeness"]["reasoning"] == "b"
    missing = await run([FactualAccuracy()], make_sample(), judge_replying({}))
    assert missing["factual_accuracy"].status is Status.MISSING_REFERENCE


async def test_semantic_similarity() -> None:
    same = make_sample(answer="Paris is lovely", reference="Paris is lovely")
    result = (await run([SemanticSimilarity()], same, judge_replying({}), HashingEmbedder()))[
        "semantic_similarity"
    ]
    assert result.score == pytest.approx(1.0)
    empty = make_sample(answer=" ", reference="Paris")
    result = (await run([SemanticSimilarity()], empty, judge_replying({}), HashingEmbedder()))[
        "semantic_similarity"
    ]
    assert result.score == 0.0
    none = (await run([SemanticSimilarity()], same, judge_replying({})))["semantic_similarity"]
    assert none.status is Status.SKIPPED and "embedding" in none.reason


@pytest.mark.parametrize(
    ("answer", "judged"),
    [
        ("I don't know.", False),
        ("I cannot determine that from the context.", False),
        ("Sorry, the documents don't say. Hope this helps!", False),
        ("I'm not sure, but I think it is Paris.", True),  # a hedge that still answers
        ("He was an unknown soldier.", True),
        ("It is about information technology.", True),
    ],
)
async def test_classification_abstentions_skip_the_judge(answer: str, judged: bool) -> None:
    chat = judge_replying(
        {"answer_classification": js({"reason": "matches", "classification": "correct"})}
    )
    sample = make_sample(answer=answer, reference="Paris")
    result = (await run([AnswerClassification()], sample, chat))["answer_classification"]
    assert bool(chat.calls) is judged
    expected = "correct" if judged else "dont_know"
    assert result.details["classification"] == expected
    assert result.score == (1.0 if judged else 0.0)


async def test_default_rubric_pass_rule_and_score() -> None:
    reply = js(
        {
            "scores": [
                {"dimension": "faithfulness", "reasoning": "ok", "score": 5},
                {"dimension": "completeness", "reasoning": "thin", "score": 3},
            ]
        }
    )
    result = (
        await run([RubricMetric()], make_sample(), judge_replying({"rubric_default": reply}))
    )["rubric"]
    assert result.details["overall"] == pytest.approx(4.0)
    assert result.score == pytest.approx(0.75)
    assert result.details["passed"] is False
    assert "completeness below the minimum" in result.reason


async def test_user_rubric_with_its_own_pass_minimum() -> None:
    levels = {i: f"level {i}" for i in range(1, 6)}
    rubric = Rubric(
        name="tone",
        dimensions=(RubricDimension(name="politeness", description="Polite?", levels=levels),),
        pass_min={"politeness": 3},
    )
    reply = js({"scores": [{"dimension": "politeness", "reasoning": "fine", "score": 3}]})
    metric = RubricMetric(rubric)
    assert metric.name == "rubric:tone"
    result = (await run([metric], make_sample(), judge_replying({"rubric_tone": reply})))[
        "rubric:tone"
    ]
    assert result.details["passed"] is True
    assert result.score == pytest.approx(0.5)


class FixedScorer:
    """A BERT scorer stand-in returning fixed scores."""

    name = "fixed"

    def __init__(self, scores: Scores) -> None:
        self.scores = scores
        self.calls = 0

    def describe(self) -> dict[str, Any]:
        return {"name": self.name}

    async def score(self, candidates: Sequence[str], references: Sequence[str]) -> list[Scores]:
        self.calls += 1
        return [self.scores for _ in candidates]

    async def aclose(self) -> None:
        pass


async def test_bert_score_reports_f1_with_precision_and_recall() -> None:
    scorer = FixedScorer(Scores(0.9, 0.6, 0.72, windows=(1, 1)))
    sample = make_sample(reference="Paris is the capital.")
    work = SampleWork(
        sample,
        Models(LLMJudge(ScriptedChat()), bert_scorer=scorer),
        0,
        {},
    )
    result = await BertScore().score(work)
    assert result.score == pytest.approx(0.72)
    assert (result.details["precision"], result.details["recall"]) == (0.9, 0.6)
    assert result.details["windows"] == {"answer": 1, "reference": 1}
    assert "windows" not in result.reason
    empty = SampleWork(make_sample(answer="", reference="x"), work.models, 0, {})
    assert (await BertScore().score(empty)).score == 0.0
    assert scorer.calls == 1  # the empty answer needed no model
    no_ref = SampleWork(make_sample(), work.models, 0, {})
    assert (await BertScore().score(no_ref)).status is Status.MISSING_REFERENCE


async def test_classification_needs_a_reference_unless_it_abstains() -> None:
    chat = judge_replying({})
    result = (await run([AnswerClassification()], make_sample(), chat))["answer_classification"]
    assert result.status is Status.MISSING_REFERENCE and chat.calls == []
    empty = (await run([AnswerClassification()], make_sample(answer=""), chat))[
        "answer_classification"
    ]
    assert empty.details["classification"] == "dont_know"


async def test_bert_score_says_when_a_long_text_was_read_in_windows() -> None:
    scorer = FixedScorer(Scores(0.8, 0.7, 0.75, windows=(1, 3)))
    sample = make_sample(reference="A reference longer than the model reads at once.")
    work = SampleWork(
        sample,
        Models(LLMJudge(ScriptedChat()), bert_scorer=scorer),
        0,
        {},
    )
    result = await BertScore().score(work)
    assert result.score == pytest.approx(0.75)
    assert result.details["windows"] == {"answer": 1, "reference": 3}
    assert "the reference in 3 overlapping windows" in result.reason
