"""Our fake System One server keeps llama-server's wire contract: the answer shapes and
the error shapes llama.cpp's own server tests pin (see contract.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.decisions_contract.contract import (
    EMPTY_INSTRUCTIONS,
    INVALID_BODIES,
    QUESTIONS,
    STATE,
    check_error,
    check_reply,
    choice_confidence,
    score_confidence,
)
from veracity.decisions.base import ServerLimits
from veracity.testing import FakeDecisionServer, Faults


@pytest.fixture
def server() -> Iterator[FakeDecisionServer]:
    with FakeDecisionServer() as running:
        yield running


def post(server: FakeDecisionServer, **body: Any) -> httpx.Response:
    return httpx.post(server.systemone_url, json={"state": STATE, **body}, timeout=30)


def test_answers_and_envelope(server: FakeDecisionServer) -> None:
    """upstream: test_systemone, test_systemone_wire_contract"""
    reply = post(server, questions=QUESTIONS)
    assert reply.status_code == 200
    body = reply.json()
    check_reply(QUESTIONS, body)
    assert set(body) == {"model", "answers", "usage"}  # exactly these, as llama-server
    assert body["usage"]["input_tokens"] > 0
    team, priority = body["answers"]["team"], body["answers"]["priority"]
    assert abs(team["confidence"] - choice_confidence(team["probabilities"])) < 1e-6
    assert abs(priority["confidence"] - score_confidence(priority["probabilities"])) < 1e-6
    assert "confidence" not in body["answers"]["upset"]


def test_the_reply_names_the_loaded_model_whatever_the_request_says(
    server: FakeDecisionServer,
) -> None:
    """upstream: test_systemone_model_field"""
    loaded = post(server, questions=QUESTIONS).json()["model"]
    for model in ["jev-latest", "a-router-name", ""]:
        reply = post(server, model=model, questions=QUESTIONS)
        assert reply.status_code == 200 and reply.json()["model"] == loaded
    refused = post(server, model=123, questions=QUESTIONS)
    check_error(422, refused.json())
    assert "model" in refused.json()["error"]["message"]


def test_answers_come_back_under_the_keys_sent(server: FakeDecisionServer) -> None:
    """upstream: test_systemone_question_id_shown"""
    renamed = {f"question_18_{name}": q for name, q in QUESTIONS.items()}
    check_reply(renamed, post(server, questions=renamed).json())


def test_an_object_state_is_read_as_json_text(server: FakeDecisionServer) -> None:
    """upstream: test_systemone_json_state"""
    questions = {
        "refund": {
            "type": "noul",
            "instructions": "Is a refund requested?",
            "criteria": {"false": "no refund is asked", "true": "a refund is asked"},
        }
    }
    as_object = post(server, state={"ticket": STATE, "plan": "pro"}, questions=questions).json()
    as_text = post(
        server, state='{"ticket": "' + STATE + '", "plan": "pro"}', questions=questions
    ).json()
    assert abs(as_object["usage"]["input_tokens"] - as_text["usage"]["input_tokens"]) <= 2
    assert abs(as_object["answers"]["refund"]["noul"] - as_text["answers"]["refund"]["noul"]) < 1e-4


def test_usage_describes_the_request_not_the_work(server: FakeDecisionServer) -> None:
    """upstream: test_systemone_input_tokens_warm_cache"""
    cold = post(server, questions=QUESTIONS).json()
    warm = post(server, questions=QUESTIONS).json()
    assert warm["usage"] == cold["usage"]


@pytest.mark.parametrize("instructions", EMPTY_INSTRUCTIONS)
def test_instructions_must_carry_content(server: FakeDecisionServer, instructions: Any) -> None:
    """upstream: test_systemone_instructions_must_carry_content"""
    reply = post(server, questions={"q": {"type": "noul", "instructions": instructions}})
    assert reply.status_code == 422
    check_error(422, reply.json())
    assert "instructions" in reply.json()["error"]["message"]


@pytest.mark.parametrize("body", INVALID_BODIES)
def test_invalid_requests_are_422(server: FakeDecisionServer, body: dict[str, Any]) -> None:
    """upstream: test_systemone_invalid_request"""
    reply = httpx.post(server.systemone_url, json=body, timeout=30)
    assert reply.status_code == 422, body
    check_error(422, reply.json())


def test_a_malformed_or_empty_body_is_400(server: FakeDecisionServer) -> None:
    """upstream: test_systemone_malformed_body"""
    for raw in (b'{"state": "unterminated', b""):
        reply = httpx.post(server.systemone_url, content=raw, timeout=30)
        assert reply.status_code == 400
        check_error(400, reply.json())


def test_videos_are_refused_unless_absent_or_empty(server: FakeDecisionServer) -> None:
    """upstream: test_systemone_videos_variants"""
    one = {"q": {"type": "noul", "instructions": "Is this true?"}}
    accepted: list[Any] = [None, []]
    refused: list[Any] = ["", 0, ["x"], {"a": 1}]
    for videos in accepted:
        assert post(server, questions=one, videos=videos).status_code == 200
    for videos in refused:
        reply = post(server, questions=one, videos=videos)
        assert reply.status_code == 422
        assert "videos" in reply.json()["error"]["message"]


def test_too_many_questions_is_413_naming_questions(server: FakeDecisionServer) -> None:
    """upstream: test_systemone_too_many_questions_is_413, _assert_413"""
    many = {f"q{i}": {"type": "noul", "instructions": "Is this true?"} for i in range(4097)}
    reply = post(server, questions=many)
    assert reply.status_code == 413
    check_error(413, reply.json())
    assert "questions" in reply.json()["error"]["message"]
    assert "Retry-After" not in reply.headers
    assert "answers" not in reply.json()


@pytest.mark.parametrize("n_max", [26, 52])
def test_the_option_limit_names_its_number(n_max: int) -> None:
    """upstream: test_systemone_option_limit_is_the_models_own"""
    with FakeDecisionServer(limits=ServerLimits(max_questions=64, max_options=n_max)) as server:

        def ask(n_options: int) -> httpx.Response:
            criteria = {f"o{i}": f"option number {i}" for i in range(n_options)}
            question = {"type": "choice", "instructions": "which one", "criteria": criteria}
            return post(server, questions={"q": question})

        assert ask(n_max).status_code == 200
        over = ask(n_max + 1)
        assert over.status_code == 422
        check_error(422, over.json())
        assert f"at most {n_max} are supported" in over.json()["error"]["message"]


def test_a_busy_server_is_429_with_whole_seconds_to_wait() -> None:
    """upstream: test_systemone_answers_429_when_the_queue_is_full"""
    with FakeDecisionServer(faults=Faults(rate_limit_rps=0.2, rate_limit_burst=1)) as server:
        assert post(server, questions=QUESTIONS).status_code == 200
        busy = post(server, questions=QUESTIONS)
        assert busy.status_code == 429
        check_error(429, busy.json())
        assert int(busy.headers["Retry-After"]) >= 1


def test_validation_precedes_the_load_gate() -> None:
    """upstream: test_systemone_validation_precedes_the_load_gate"""
    with FakeDecisionServer(faults=Faults(rate_limit_rps=0.2, rate_limit_burst=1)) as server:
        assert post(server, questions=QUESTIONS).status_code == 200
        assert (
            post(server, questions={"q": {"type": "noul", "instructions": ""}}).status_code == 422
        )
        assert post(server, questions=QUESTIONS).status_code == 429


def test_not_a_decision_model_is_501() -> None:
    """upstream: test_systemone_not_a_decision_model_is_501"""
    with FakeDecisionServer(decision_model=False) as server:
        reply = post(server, questions=QUESTIONS)
        assert reply.status_code == 501
        check_error(501, reply.json())


def test_a_request_over_the_context_is_400_of_its_own_kind() -> None:
    """upstream: test_systemone_refused_group_leaves_no_slot_behind (its 400
    exceed_context_size_error naming the request's tokens)"""
    limits = ServerLimits(max_questions=64, max_options=26, max_state_tokens=40)
    with FakeDecisionServer(limits=limits) as server:
        reply = post(server, state=STATE * 10, questions=QUESTIONS)
        assert reply.status_code == 400
        check_error(400, reply.json(), "exceed_context_size_error")
        assert "tokens)" in reply.json()["error"]["message"]
