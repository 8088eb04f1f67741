"""A real third-party System One server, sparrow-decider, on loopback: it keeps the wire
contract (contract.py), and our fake answers in the same shapes it does — the same keys,
the same types — so that the fake stays honest.

Where sparrow-decider 0.2 differs from llama-server, a client must cope with both: its
envelope adds ``latency_ms``, its ``usage.input_tokens`` is 0, and its errors are 422 with
``{"error": "a message"}`` (a string, not an object), a body that is not JSON included.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.decisions_contract.contract import (
    ENVELOPE_KEYS,
    INVALID_BODIES,
    QUESTIONS,
    STATE,
    check_reply,
)
from veracity.testing import FakeDecisionServer

MORE_QUESTIONS: dict[str, Any] = {
    "refund": {
        "type": "noul",
        "instructions": "Is a refund requested?",
        "criteria": {"false": "no refund is asked", "true": "a refund is asked"},
    },
    "two_levels": {"type": "score", "instructions": "Is it urgent?", "criteria": ["no", "yes"]},
    "ten_levels": {
        "type": "score",
        "instructions": "How angry, from 0 to 9?",
        "criteria": [str(i) for i in range(10)],
    },
    "verdict": {
        "type": "choice",
        "instructions": "Claim: the parcel arrived broken.",
        "criteria": {
            "supported": "the ticket states it",
            "contradicted": "the ticket states the opposite",
            "not_enough_info": "the ticket does not say",
        },
    },
}


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeDecisionServer]:
    with FakeDecisionServer() as server:
        yield server


def post(base_url: str, body: dict[str, Any] | bytes) -> httpx.Response:
    if isinstance(body, bytes):
        return httpx.post(f"{base_url}/systemone", content=body, timeout=30)
    return httpx.post(f"{base_url}/systemone", json=body, timeout=30)


def shape(value: Any) -> Any:
    """A JSON value's keys and types, its numbers all one type and its strings another."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value]
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


@pytest.mark.parametrize("questions", [QUESTIONS, MORE_QUESTIONS], ids=["ticket", "more"])
def test_sparrow_decider_keeps_the_wire_contract(
    sparrow_decider: str, questions: dict[str, Any]
) -> None:
    reply = post(sparrow_decider, {"model": "any", "state": STATE, "questions": questions})
    assert reply.status_code == 200, reply.text
    check_reply(questions, reply.json())


@pytest.mark.parametrize("questions", [QUESTIONS, MORE_QUESTIONS], ids=["ticket", "more"])
def test_the_fake_answers_in_sparrow_deciders_shapes(
    sparrow_decider: str, fake: FakeDecisionServer, questions: dict[str, Any]
) -> None:
    body = {"state": STATE, "questions": questions}
    real = post(sparrow_decider, body).json()
    ours = post(fake.base_url, body).json()
    assert shape(ours["answers"]) == shape(real["answers"])
    assert shape(ours["usage"]) == shape(real["usage"])
    assert ENVELOPE_KEYS == set(ours) <= set(real)
    for name in questions:  # a score's levels and their legend alike
        if "legend" in real["answers"][name]:
            assert ours["answers"][name]["legend"] == real["answers"][name]["legend"]


def test_both_refuse_what_the_contract_refuses(
    sparrow_decider: str, fake: FakeDecisionServer
) -> None:
    # sparrow-decider answers empty instructions, a model that is no string, a missing state
    # (read as None) and no questions at all (no answers); it shares the questions' checks.
    shared = [
        body
        for body in INVALID_BODIES
        if body.get("questions") and set(body) == {"state", "questions"}
    ]
    assert len(shared) == 5
    for body in shared:
        real, ours = post(sparrow_decider, body), post(fake.base_url, body)
        assert real.status_code == ours.status_code == 422, body
        assert "error" in real.json() and "error" in ours.json()


def test_a_body_that_is_not_json_is_refused_by_both(
    sparrow_decider: str, fake: FakeDecisionServer
) -> None:
    raw = b'{"state": "unterminated'
    real, ours = post(sparrow_decider, raw), post(fake.base_url, raw)
    assert real.status_code in (400, 422) and ours.status_code == 400
    assert isinstance(real.json()["error"], str | dict)
