"""Hostile decision replies from the fake: each mangling breaks a reply the way it says."""

from __future__ import annotations

import json
import math
from typing import Any

import httpx
import pytest

from veracity.testing import (
    DECISION_MANGLINGS,
    DecisionExchange,
    DecisionMangling,
    FakeDecisionServer,
)
from veracity.testing.decision_mangle import UNASKED_NAME

STATE = "Paris is the capital of France."
KEY = "sk-test-0123456789abcdef"
SYSTEMONE = {
    "state": STATE,
    "questions": {
        "capital": {"type": "noul", "instructions": "Paris is the capital of France"},
        "claim": {
            "type": "choice",
            "instructions": "Claim: Paris is in France",
            "criteria": {"supported": "", "contradicted": "", "not_enough_info": ""},
        },
    },
}
OPENAI = {
    "model": "m",
    "input": STATE,
    "questions": [
        {"type": "predicate", "name": "capital", "instructions": "Paris is the capital"},
        {
            "type": "choice",
            "name": "claim",
            "instructions": "Claim: Paris is in France",
            "choices": [{"value": "supported"}, {"value": "not_enough_info"}],
        },
    ],
}


def ask(mangling: Any, route: str, **options: Any) -> httpx.Response:
    with FakeDecisionServer(mangling=mangling, **options) as server:
        url = server.systemone_url if route == "systemone" else server.decisions_url
        body = SYSTEMONE if route == "systemone" else OPENAI
        reply = httpx.post(url, json=body, headers={"Authorization": f"Bearer {KEY}"}, timeout=30)
        assert server.stats.manglings == {mangling if isinstance(mangling, str) else "hook": 1}
        return reply


def first_probabilities(route: str, body: dict[str, Any]) -> list[Any]:
    if route == "systemone":
        return [body["answers"]["capital"]["noul"]]
    return [body["answers"][0]["probability"]]


@pytest.mark.parametrize("route", ["systemone", "openai"])
def test_wrong_type(route: str) -> None:
    body = ask("wrong_type", route).json()
    first = body["answers"]["capital"] if route == "systemone" else body["answers"][0]
    assert first["type"] == "choice"  # a noul / predicate asked, a choice answered


@pytest.mark.parametrize("route", ["systemone", "openai"])
@pytest.mark.parametrize(
    ("mangling", "check"),
    [
        ("nan_probability", math.isnan),
        ("negative_probability", lambda p: p < 0),
        ("unnormalised", lambda p: p > 1),
        ("string_probability", lambda p: isinstance(p, str)),
    ],
)
def test_broken_probabilities(route: str, mangling: DecisionMangling, check: Any) -> None:
    reply = ask(mangling, route)
    assert reply.status_code == 200
    (probability,) = first_probabilities(route, json.loads(reply.content))
    assert check(probability)


def test_broken_distributions_of_a_choice() -> None:
    def only_the_choice(mangling: DecisionMangling) -> dict[str, float]:
        body = SYSTEMONE | {"questions": {"claim": SYSTEMONE["questions"]["claim"]}}  # type: ignore[index]
        with FakeDecisionServer(mangling=mangling) as server:
            reply = httpx.post(server.systemone_url, json=body, timeout=10)
        probabilities: dict[str, float] = reply.json()["answers"]["claim"]["probabilities"]
        return probabilities

    negative = only_the_choice("negative_probability")
    assert min(negative.values()) < 0 and abs(sum(negative.values()) - 1) < 1e-3
    assert sum(only_the_choice("unnormalised").values()) == pytest.approx(1.5, abs=1e-3)


def test_answers_for_questions_never_asked_and_missing_ones() -> None:
    systemone = ask("unasked_answer", "systemone").json()
    assert UNASKED_NAME in systemone["answers"]
    listed = ask("unasked_answer", "openai").json()
    assert [a["name"] for a in listed["answers"]] == ["capital", "claim", UNASKED_NAME]
    assert "answers" not in ask("missing_answer", "systemone").json()
    assert [a["name"] for a in ask("missing_answer", "openai").json()["answers"]] == ["capital"]


def test_a_huge_body() -> None:
    reply = ask("huge_body", "systemone", huge_bytes=2_000_000)
    assert len(reply.content) >= 2_000_000
    assert reply.json()["answers"]["capital"]["type"] == "noul"


@pytest.mark.parametrize(("route", "status"), [("systemone", 422), ("openai", 400)])
def test_the_key_echoed(route: str, status: int) -> None:
    reply = ask("echo_key", route)
    assert reply.status_code == status
    assert KEY in reply.json()["error"]["message"]
    assert ask("echo_key_in_model", route).json()["model"] == KEY


def test_a_hook_breaks_a_reply_any_other_way() -> None:
    seen: list[DecisionExchange] = []

    def hook(exchange: DecisionExchange) -> tuple[int, bytes]:
        seen.append(exchange)
        return 200, b'{"model": "m", "answers": {"capital": {"type": "noul", "noul": 1e999}}}'

    reply = ask(hook, "systemone")
    assert reply.json()["answers"]["capital"]["noul"] == math.inf
    (exchange,) = seen
    assert exchange.format == "systemone" and exchange.api_key == KEY
    assert exchange.request == SYSTEMONE
    assert list(exchange.reply["answers"]) == ["capital", "claim"]


def test_every_mangling_is_documented() -> None:
    from veracity.testing.decision_mangle import mangle_decision

    for mangling in DECISION_MANGLINGS:
        assert f"``{mangling}``" in (mangle_decision.__doc__ or "")
