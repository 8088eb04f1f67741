"""OpenAI's Decisions API through the SDK's decisions resource, end to end over HTTP."""

from __future__ import annotations

from typing import Any

import pytest

from tests.decisions.endpoint import Asked, Reply, serving
from tests.decisions.test_systemone import FAST_RETRY, claim
from veracity.decisions import DecisionRequest, Option, Question
from veracity.decisions.openai_decisions import OpenAIDecisions
from veracity.decisions.reading import DECLINED, UNANSWERED

RATING = Question(
    "rating", "score", "How relevant?", (Option("low", "off topic"), Option("mid"), Option("high"))
)
FAITHFUL = Question("faithful", "predicate", "Is it faithful?")


def luna(base_url: str) -> OpenAIDecisions:
    return OpenAIDecisions(
        "gpt-6-luna", base_url=base_url, api_key="sk-test-1234567890", retry=FAST_RETRY
    )


def answer_in_order(asked: Asked) -> Reply:
    answers: list[dict[str, Any]] = []
    for question in asked.body["questions"]:
        kind = question["type"]
        if kind == "predicate":
            answers.append({"type": "predicate", "name": question["name"], "probability": 0.25})
        elif kind == "choice":
            values = [choice["value"] for choice in question["choices"]]
            probabilities = [
                {"value": v, "probability": 0.5 if i == 0 else 0.5 / (len(values) - 1)}
                for i, v in enumerate(values)
            ]
            answers.append(
                {
                    "type": "choice",
                    "name": question["name"],
                    "choice": values[0],
                    "probabilities": probabilities,
                    "confidence": 0.4,
                }
            )
        else:
            levels = [level["label"] for level in question["levels"]]
            probabilities = [
                {"label": label, "value": i, "probability": 1 / len(levels)}
                for i, label in enumerate(levels)
            ]
            answers.append(
                {"type": "score", "score": 1.0, "probabilities": probabilities, "confidence": 0.1}
            )
    usage = {
        "input_tokens": 42,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": 0,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 42,
    }
    return Reply({"model": "gpt-6-luna-2026-09", "answers": answers, "usage": usage})


async def test_every_question_type_round_trips() -> None:
    request = DecisionRequest("The answer and its contexts.", (FAITHFUL, claim(0), RATING))
    with serving(answer_in_order) as server:
        model = luna(server.base_url)
        reply = await model.decide(request, iteration=0)
        await model.aclose()
    (asked,) = server.asked
    assert asked.path == "/v1/decisions"
    assert asked.key == "sk-test-1234567890"
    assert asked.body["model"] == "gpt-6-luna"
    assert asked.body["input"] == "The answer and its contexts."
    faithful, chosen, rating = asked.body["questions"]
    assert faithful == {"type": "predicate", "name": "faithful", "instructions": "Is it faithful?"}
    assert chosen["choices"][0] == {"value": "supported", "description": "the claim is supported"}
    assert rating["levels"] == [
        {"label": "low", "description": "off topic"},
        {"label": "mid"},
        {"label": "high"},
    ]
    assert reply.answers["faithful"].probability("true") == 0.25
    assert reply.answers["claim_0"].most_likely() == "supported"
    assert reply.answers["claim_0"].confidence == 0.4
    # The score's answer has no name: it is matched by its place.
    rated = reply.answers["rating"]
    assert [value for value, _ in rated.probabilities] == ["low", "mid", "high"]
    assert [p for _, p in rated.probabilities] == pytest.approx([1 / 3] * 3)
    assert reply.usage.calls == 1 and reply.usage.input_tokens == 42
    assert reply.model == "gpt-6-luna-2026-09"


async def test_a_refusal_and_a_missing_answer_are_refusals() -> None:
    def answer(asked: Asked) -> Reply:
        return Reply(
            {
                "model": "gpt-6-luna",
                "answers": [{"type": "refusal", "name": "faithful"}],
                "usage": {"input_tokens": 5, "output_tokens": 0},
            }
        )

    with serving(answer) as server:
        model = luna(server.base_url)
        reply = await model.decide(DecisionRequest("s", (FAITHFUL, claim(0))), iteration=0)
        await model.aclose()
    assert reply.answers["faithful"].refusal == DECLINED
    assert reply.answers["claim_0"].refusal == UNANSWERED


async def test_over_400_questions_are_split() -> None:
    request = DecisionRequest("s", tuple(claim(i) for i in range(401)))
    with serving(answer_in_order) as server:
        model = luna(server.base_url)
        reply = await model.decide(request, iteration=0)
        await model.aclose()
    assert sorted(len(a.body["questions"]) for a in server.asked) == [200, 201]
    assert reply.usage.calls == 2 and reply.usage.input_tokens == 84


def test_the_key_comes_from_openai_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        OpenAIDecisions("gpt-6-luna")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    described = OpenAIDecisions("gpt-6-luna").describe()
    assert described["provider"] == "openai-decisions"
    assert described["limits"] == {
        "max_questions": 400,
        "max_options": 255,
        "max_state_tokens": None,
    }
    assert "sk-from" not in repr(described)
