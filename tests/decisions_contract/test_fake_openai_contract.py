"""Our fake OpenAI Decisions server replies in the shape of the ``openai`` SDK's own
``Decision`` type: every field it declares, of its type, and no other."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pydantic
import pytest
from openai.types import Decision

from veracity.testing import FakeDecisionServer

QUESTIONS: list[dict[str, Any]] = [
    {"type": "predicate", "name": "upset", "instructions": "The customer is upset."},
    {
        "type": "choice",
        "name": "team",
        "instructions": "Which team should take this ticket?",
        "choices": [
            {"value": "returns", "description": "damaged or broken goods"},
            {"value": "billing"},
            {"value": False},
        ],
    },
    {
        "type": "score",
        "name": "priority",
        "instructions": "How soon must the shop answer?",
        "levels": [
            {"label": "later"},
            {"label": "soon", "description": "this week"},
            {"label": "now"},
        ],
    },
    {"type": "predicate", "instructions": "An unnamed question."},
]
INPUT = [
    {"role": "developer", "content": "Tickets of a web shop."},
    {"role": "user", "content": [{"type": "input_text", "text": "My parcel arrived broken."}]},
]


@pytest.fixture
def server() -> Iterator[FakeDecisionServer]:
    with FakeDecisionServer(refuse={"priority"}) as running:
        yield running


def declared(model: type[pydantic.BaseModel]) -> set[str]:
    return set(model.model_fields)


def test_a_reply_is_exactly_the_sdks_decision(server: FakeDecisionServer) -> None:
    reply = httpx.post(
        server.decisions_url,
        json={"model": "gpt-6-luna", "input": INPUT, "questions": QUESTIONS},
        timeout=30,
    )
    assert reply.status_code == 200
    body = reply.json()
    decision = Decision.model_validate(body, strict=True)
    assert set(body) == declared(Decision)
    assert set(body["usage"]) == declared(type(decision.usage))
    assert set(body["usage"]["input_tokens_details"]) == {"cache_write_tokens", "cached_tokens"}
    for sent, answer, parsed in zip(QUESTIONS, body["answers"], decision.answers, strict=True):
        assert set(answer) == declared(type(parsed)), answer
        assert parsed.name == sent.get("name")
    upset, team, priority, unnamed = decision.answers
    assert upset.type == "predicate" and unnamed.type == "predicate"
    assert team.type == "choice"
    assert [p.value for p in team.probabilities] == ["returns", "billing", False]
    assert priority.type == "refusal"  # scripted
    assert (
        decision.usage.output_tokens == 0
        and decision.usage.output_tokens_details.reasoning_tokens == 0
    )
    assert decision.usage.total_tokens == decision.usage.input_tokens


def test_errors_are_openais_shape(server: FakeDecisionServer) -> None:
    too_many = [{"type": "predicate", "instructions": "x"}] * 401
    reply = httpx.post(
        server.decisions_url, json={"model": "m", "input": "x", "questions": too_many}, timeout=30
    )
    assert reply.status_code == 400
    assert set(reply.json()) == {"error"}
    assert set(reply.json()["error"]) == {"message", "type", "param", "code"}
    assert reply.json()["error"]["param"] == "questions"
    assert "maximum length 400" in reply.json()["error"]["message"]
