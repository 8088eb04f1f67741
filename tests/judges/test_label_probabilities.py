"""Token log-probabilities behind the judge's other labels and ratings: chunk relevance,
answer classification and the direct relevance rating."""

from __future__ import annotations

import json
import math
import re

import pytest

from tests.judges.test_judge_replies import reply, tokens_of
from veracity.chat import ScriptedChat
from veracity.judges import LLMJudge
from veracity.metrics import (
    AnswerClassification,
    AnswerRelevance,
    ContextPrecision,
    Metric,
    Models,
    SampleWork,
)
from veracity.metrics.context_precision import soft_average_precision
from veracity.types import AnswerClass, MetricResult, Sample, TokenLogprob

SAMPLE = Sample(
    id="a",
    question="What is the capital of France?",
    answer="It is Paris.",
    contexts=("Paris is the capital of France.", "Lyon has a large old town."),
    reference="Paris",
)


def chunks_reply(*flags: bool) -> str:
    items = [
        {"index": n, "reason": "r", "relevance": 90 if f else 10, "relevant": f}
        for n, f in enumerate(flags, 1)
    ]
    return json.dumps({"chunks": items})


async def score(metric: Metric, chat: ScriptedChat) -> MetricResult:
    work = SampleWork(SAMPLE, Models(LLMJudge(chat)), 0, {metric.name: metric})
    return await metric.score(work)


async def test_each_chunk_gets_p_relevant_from_its_flag_tokens() -> None:
    text = chunks_reply(True, False)
    # Each flag token weighed against the other: 0.8 / 0.2 at the first, 0.3 / 0.7 at the
    # second (tokens_of gives both flags the same alternatives, so write them apart).
    pieces = re.findall(r"\w+|\W", text)
    flag_at = [i for i, piece in enumerate(pieces) if piece in ("true", "false")]
    weights = {
        flag_at[0]: [("true", 0.8), ("false", 0.2)],
        flag_at[1]: [("true", 0.3), ("false", 0.7)],
    }
    tokens = tuple(
        TokenLogprob(
            piece,
            math.log(dict(weights[i])[piece]) if i in weights else 0.0,
            tuple((t, math.log(p)) for t, p in weights.get(i, [])),
        )
        for i, piece in enumerate(pieces)
    )
    result = await score(ContextPrecision(), ScriptedChat([reply(text, tokens=tokens)]))
    chunks = result.details["chunks"]
    assert [c["p_relevant"] for c in chunks] == [pytest.approx(0.8), pytest.approx(0.3)]
    # The score stays the average precision of the written flags; the weighted one is beside it.
    assert result.score == 1.0
    assert result.details["expected_average_precision"] == pytest.approx(
        soft_average_precision([0.8, 0.3])
    )


async def test_a_flag_after_an_index_naming_another_chunk_is_not_weighed() -> None:
    # The reply lists chunk 2 first; its flag must go to chunk 2, and a flag whose written
    # value disagrees with what was parsed for that chunk gives nothing.
    text = json.dumps(
        {
            "chunks": [
                {"index": 2, "reason": "r", "relevance": 10, "relevant": False},
                {"index": 1, "reason": "r", "relevance": 90, "relevant": True},
            ]
        }
    )
    tokens = tokens_of(
        text, {"true": [("true", 0.9), ("false", 0.1)], "false": [("false", 0.6), ("true", 0.4)]}
    )
    result = await score(ContextPrecision(), ScriptedChat([reply(text, tokens=tokens)]))
    by_index = {c["index"]: c["p_relevant"] for c in result.details["chunks"]}
    assert by_index == {0: pytest.approx(0.9), 1: pytest.approx(0.4)}


async def test_without_tokens_chunks_have_no_probability() -> None:
    result = await score(ContextPrecision(), ScriptedChat([reply(chunks_reply(True, False))]))
    assert all("p_relevant" not in c for c in result.details["chunks"])
    assert "expected_average_precision" not in result.details


def test_soft_average_precision_matches_the_hard_one_on_certain_flags() -> None:
    assert soft_average_precision([1.0, 0.0, 1.0]) == pytest.approx((1 + 2 / 3) / 2)
    assert soft_average_precision([0.0, 0.0]) == 0.0
    # A probably-relevant chunk ranked first is better than the same chunk ranked second.
    assert soft_average_precision([0.9, 0.2]) > soft_average_precision([0.2, 0.9])


async def test_classification_keeps_the_written_label_and_reports_its_weights() -> None:
    text = json.dumps({"reason": "It names Paris.", "classification": "correct"})
    tokens = tokens_of(text, {"correct": [("correct", 0.7), ("wrong", 0.2), ("dont", 0.1)]})
    result = await score(AnswerClassification(), ScriptedChat([reply(text, tokens=tokens)]))
    assert result.score == 1.0 and result.details["classification"] == "correct"
    assert result.details["probabilities"] == {
        AnswerClass.CORRECT.value: pytest.approx(0.7),
        AnswerClass.WRONG.value: pytest.approx(0.2),
        AnswerClass.DONT_KNOW.value: pytest.approx(0.1),
    }


async def test_a_single_token_rating_is_probability_weighted() -> None:
    text = json.dumps({"reason": "On topic.", "score": 80})
    # Written as one token, "80" was weighed against "90" and "40".
    pieces = re.findall(r"80|\w+|\W", text)
    alternatives = (("80", math.log(0.5)), ("90", math.log(0.25)), ("40", math.log(0.25)))
    tokens = tuple(
        TokenLogprob(p, math.log(0.5), alternatives)
        if p == "80"
        else TokenLogprob(p, 0.0, ((p, 0.0),))
        for p in pieces
    )
    # No embedder: answer relevance falls back to the direct rating.
    result = await score(AnswerRelevance(), ScriptedChat([reply(text, tokens=tokens)]))
    assert result.details["method"] == "judge_rating"
    assert result.score == pytest.approx((0.5 * 80 + 0.25 * 90 + 0.25 * 40) / 100)
    assert result.details["written_rating"] == pytest.approx(0.8)


async def test_a_rating_split_into_digits_is_taken_as_written() -> None:
    text = json.dumps({"reason": "On topic.", "score": 85})
    # As Qwen's tokenizer writes numbers: one digit per token.
    pieces = re.findall(r"\d|[A-Za-z_]+|\W", text)
    tokens = tuple(TokenLogprob(p, 0.0, ((p, 0.0),)) for p in pieces)
    result = await score(AnswerRelevance(), ScriptedChat([reply(text, tokens=tokens)]))
    assert result.score == pytest.approx(0.85)
    assert "written_rating" not in result.details
