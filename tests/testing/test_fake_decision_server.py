"""The fake decision server: both routes, its checks and limits, a chat model behind it,
refusals, faults, counting, and the official SDK reading its replies."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest

from veracity.decisions.base import Question, ServerLimits
from veracity.testing import FakeDecisionServer, Faults

STATE = "Paris is the capital of France. The Eiffel Tower was finished in 1889."
SYSTEMONE_QUESTIONS: dict[str, Any] = {
    "claim": {
        "type": "choice",
        "instructions": "Claim: The Eiffel Tower was finished in 1889.",
        "criteria": {
            "supported": "the passages state it",
            "contradicted": "the passages state the opposite",
            "not_enough_info": "the passages do not say",
        },
    },
    "level": {"type": "score", "instructions": "Paris capital", "criteria": ["no", "some", "all"]},
    "capital": {"type": "noul", "instructions": "Paris is the capital of France"},
}
OPENAI_QUESTIONS: list[dict[str, Any]] = [
    {"type": "predicate", "name": "capital", "instructions": "Paris is the capital of France"},
    {
        "type": "choice",
        "name": "claim",
        "instructions": "Claim: Berlin has large parks.",
        "choices": [
            {"value": "supported"},
            {"value": "contradicted"},
            {"value": "not_enough_info", "description": "the passages do not say"},
        ],
    },
    {
        "type": "score",
        "name": "level",
        "instructions": "Paris capital",
        "levels": [{"label": "low"}, {"label": "mid"}, {"label": "high"}],
    },
]


@pytest.fixture
def server() -> Iterator[FakeDecisionServer]:
    with FakeDecisionServer() as running:
        yield running


def systemone(server: FakeDecisionServer, body: dict[str, Any], **headers: str) -> httpx.Response:
    return httpx.post(server.systemone_url, json=body, headers=headers, timeout=10)


def decisions(server: FakeDecisionServer, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(server.decisions_url, json=body, timeout=10)


def sdk(server: FakeDecisionServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0, timeout=10)


def test_systemone_answers_every_question_in_order(server: FakeDecisionServer) -> None:
    reply = systemone(server, {"model": "any", "state": STATE, "questions": SYSTEMONE_QUESTIONS})
    assert reply.status_code == 200
    body = reply.json()
    assert body["model"] == "fake-decider"  # the loaded model, whatever the request says
    assert list(body["answers"]) == ["claim", "level", "capital"]
    claim = body["answers"]["claim"]
    assert claim["choice"] == "supported"
    assert abs(sum(claim["probabilities"].values()) - 1) < 1e-3
    assert body["answers"]["level"]["score"] > 1.5
    assert body["answers"]["capital"]["noul"] > 0.9
    assert body["usage"]["output_tokens"] == 0
    assert body["usage"]["input_tokens"] >= len(STATE) // 4


def test_the_official_sdk_parses_decisions(server: FakeDecisionServer) -> None:
    with sdk(server) as client:
        decision = client.decisions.create(
            model="gpt-6-luna",
            input=[{"role": "user", "content": STATE}],
            questions=OPENAI_QUESTIONS,  # type: ignore[arg-type]
        )
    assert decision.model == "gpt-6-luna"
    capital, claim, level = decision.answers
    assert capital.type == "predicate" and capital.name == "capital"
    assert capital.probability > 0.9
    assert claim.type == "choice" and claim.choice == "not_enough_info"
    assert [p.value for p in claim.probabilities] == [
        "supported",
        "contradicted",
        "not_enough_info",
    ]
    assert level.type == "score"
    assert [(p.label, p.value) for p in level.probabilities] == [
        ("low", 0),
        ("mid", 1),
        ("high", 2),
    ]
    assert math.isclose(level.score, sum(p.value * p.probability for p in level.probabilities))
    assert decision.usage.output_tokens == 0
    assert decision.usage.total_tokens == decision.usage.input_tokens > 0


def test_boolean_choices_come_back_as_booleans(server: FakeDecisionServer) -> None:
    question = {
        "type": "choice",
        "instructions": "x",
        "choices": [{"value": True}, {"value": "true"}],
    }
    body = decisions(server, {"model": "m", "input": "x", "questions": [question]}).json()
    assert [p["value"] for p in body["answers"][0]["probabilities"]] == [True, "true"]
    assert body["answers"][0]["name"] is None


def test_input_tokens_count_the_state_once_and_each_question(server: FakeDecisionServer) -> None:
    one = {"q": SYSTEMONE_QUESTIONS["capital"]}
    two = {"q": SYSTEMONE_QUESTIONS["capital"], "r": SYSTEMONE_QUESTIONS["capital"]}
    single = systemone(server, {"state": STATE, "questions": one}).json()["usage"]
    double = systemone(server, {"state": STATE, "questions": two}).json()["usage"]
    longer = systemone(server, {"state": STATE * 3, "questions": one}).json()["usage"]
    per_question = double["input_tokens"] - single["input_tokens"]
    assert 0 < per_question < single["input_tokens"]
    assert longer["input_tokens"] - single["input_tokens"] == pytest.approx(
        2 * len(STATE) / 4, abs=2
    )
    assert server.stats.input_tokens == sum(u["input_tokens"] for u in (single, double, longer))


def test_requests_are_counted_and_recorded(server: FakeDecisionServer) -> None:
    systemone(server, {"state": STATE, "questions": SYSTEMONE_QUESTIONS})
    decisions(server, {"model": "m", "input": STATE, "questions": OPENAI_QUESTIONS})
    systemone(server, {"state": STATE, "questions": {}})  # refused: 422
    stats = server.stats
    assert stats.requests == 3
    assert stats.by_format == {"systemone": 2, "openai": 1}
    assert stats.by_status == {200: 2, 422: 1}
    assert stats.decisions == 2 and stats.questions == 6 and stats.refusals == 0
    assert [set(body) for body in server.requests][:2] == [
        {"state", "questions"},
        {"model", "input", "questions"},
    ]
    server.reset_stats()
    assert server.stats.requests == 0 and server.requests == []


@pytest.mark.parametrize(
    ("body", "names"),
    [
        ({"questions": SYSTEMONE_QUESTIONS}, "state"),
        ({"state": STATE}, "questions"),
        ({"state": STATE, "questions": {}}, "questions"),
        ({"state": STATE, "model": 123, "questions": SYSTEMONE_QUESTIONS}, "model"),
        ({"state": STATE, "questions": {"q": {"type": "maybe", "instructions": "x"}}}, "type"),
        (
            {"state": STATE, "questions": {"q": {"type": "noul", "instructions": ""}}},
            "instructions",
        ),
        ({"state": STATE, "questions": {"q": {"type": "noul", "instructions": 0}}}, "instructions"),
        ({"state": STATE, "questions": {"q": {"type": "choice", "instructions": "x"}}}, "criteria"),
        (
            {
                "state": STATE,
                "questions": {"q": {"type": "score", "instructions": "x", "criteria": ["a"] * 11}},
            },
            "criteria",
        ),
    ],
)
def test_systemone_refuses_what_llama_server_refuses(
    server: FakeDecisionServer, body: dict[str, Any], names: str
) -> None:
    reply = systemone(server, body)
    assert reply.status_code == 422
    error = reply.json()["error"]
    assert error["type"] == "unprocessable_entity_error" and error["code"] == 422
    assert names in error["message"]


def test_a_body_that_is_not_json_is_400(server: FakeDecisionServer) -> None:
    reply = httpx.post(server.systemone_url, content=b'{"state": "unterminated', timeout=10)
    assert reply.status_code == 400
    assert reply.json()["error"]["type"] == "invalid_request_error"
    assert httpx.post(server.decisions_url, content=b"", timeout=10).status_code == 400


def test_openai_errors_name_the_param(server: FakeDecisionServer) -> None:
    bad = {"model": "m", "input": "x", "questions": [{"type": "guess", "instructions": "x"}]}
    error = decisions(server, bad).json()["error"]
    assert error["param"] == "questions[0].type" and error["type"] == "invalid_request_error"
    with sdk(server) as client, pytest.raises(openai.BadRequestError, match="Missing required"):
        client.decisions.create(model="m", input="x", questions=[{"type": "predicate"}])  # type: ignore[list-item]


def test_limits_are_refused_with_a_message_naming_them() -> None:
    with FakeDecisionServer(limits=ServerLimits(max_questions=2, max_options=3)) as server:
        questions = {f"q{i}": {"type": "noul", "instructions": "Paris"} for i in range(3)}
        over = systemone(server, {"state": STATE, "questions": questions})
        assert over.status_code == 413
        assert over.json()["error"]["type"] == "request_too_large_error"
        assert "the maximum is 2" in over.json()["error"]["message"]
        assert "Retry-After" not in over.headers
        wide = {"type": "choice", "instructions": "x", "criteria": dict.fromkeys("abcd", "")}
        refused = systemone(server, {"state": STATE, "questions": {"q": wide}})
        assert refused.status_code == 422
        assert "at most 3 are supported" in refused.json()["error"]["message"]
        listed = [{"type": "predicate", "instructions": "x"}] * 3
        error = decisions(server, {"model": "m", "input": "x", "questions": listed}).json()
        assert "maximum length 2" in error["error"]["message"]
        assert error["error"]["code"] == "array_above_max_length"


def test_limit_status_answers_as_vllm_and_ollama_do() -> None:
    limits = ServerLimits(max_questions=64, max_options=26)
    with FakeDecisionServer(limits=limits, limit_status=413) as server:
        many = [{"type": "predicate", "instructions": "x"}] * 65
        reply = decisions(server, {"model": "m", "input": "x", "questions": many})
        assert reply.status_code == 413
        assert "maximum length 64" in reply.json()["error"]["message"]


def test_a_state_over_the_window_is_a_context_error() -> None:
    limits = ServerLimits(max_questions=8, max_options=8, max_state_tokens=50)
    with FakeDecisionServer(limits=limits) as server:
        reply = systemone(
            server, {"state": STATE * 20, "questions": {"q": {"type": "noul", "instructions": "x"}}}
        )
        assert reply.status_code == 400
        assert reply.json()["error"]["type"] == "exceed_context_size_error"
        assert "(50 tokens)" in reply.json()["error"]["message"]


def test_a_chat_model_behind_the_server_is_501_on_both_routes() -> None:
    with FakeDecisionServer(decision_model=False) as server:
        for reply in (
            systemone(server, {"state": STATE, "questions": SYSTEMONE_QUESTIONS}),
            decisions(server, {"model": "m", "input": STATE, "questions": OPENAI_QUESTIONS}),
        ):
            assert reply.status_code == 501
            assert reply.json() == {
                "error": {
                    "code": 501,
                    "message": reply.json()["error"]["message"],
                    "type": "not_supported_error",
                }
            }
            assert "not a decision model" in reply.json()["error"]["message"]
        assert server.stats.decisions == 0


def test_scripted_refusals() -> None:
    with FakeDecisionServer(refuse={"claim"}) as server:
        body = systemone(server, {"state": STATE, "questions": SYSTEMONE_QUESTIONS}).json()
        assert list(body["answers"]) == ["level", "capital"]  # left out: a refusal
        with sdk(server) as client:
            answers = client.decisions.create(
                model="m",
                input=STATE,
                questions=OPENAI_QUESTIONS,  # type: ignore[arg-type]
            ).answers
        assert [(a.type, a.name) for a in answers] == [
            ("predicate", "capital"),
            ("refusal", "claim"),
            ("score", "level"),
        ]
        assert server.stats.refusals == 2

    def refuse_scores(question: Question) -> bool:
        return question.kind == "score"

    with FakeDecisionServer(refuse=refuse_scores) as server:
        body = systemone(server, {"state": STATE, "questions": SYSTEMONE_QUESTIONS}).json()
        assert list(body["answers"]) == ["claim", "capital"]


def test_a_responder_scripts_the_probabilities() -> None:
    def responder(state: str, question: Question) -> tuple[float, ...]:
        return (
            (0.25, 0.75)
            if question.kind == "predicate"
            else (1.0,) + (0.0,) * (len(question.options) - 1)
        )

    with FakeDecisionServer(responder) as server:
        body = systemone(server, {"state": STATE, "questions": SYSTEMONE_QUESTIONS}).json()
        assert body["answers"]["capital"]["noul"] == 0.75
        assert body["answers"]["claim"]["choice"] == "supported"
        assert body["answers"]["claim"]["confidence"] == 1.0
        assert body["answers"]["level"]["score"] == 0.0


def test_a_broken_responder_is_a_500_naming_it() -> None:
    with FakeDecisionServer(lambda state, question: (1.0,)) as server:
        reply = systemone(server, {"state": STATE, "questions": SYSTEMONE_QUESTIONS})
        assert reply.status_code == 500
        assert "responder gave 1 probabilities" in reply.json()["error"]["message"]


def test_rate_limits_send_retry_after_in_each_format() -> None:
    faults = Faults(rate_limit_rps=0.5, rate_limit_burst=1)
    with FakeDecisionServer(faults=faults) as server:
        body = {"state": STATE, "questions": SYSTEMONE_QUESTIONS}
        assert systemone(server, body).status_code == 200
        limited = systemone(server, body)
        assert limited.status_code == 429
        assert limited.json()["error"]["type"] == "rate_limit_error"
        assert int(limited.headers["Retry-After"]) >= 1  # whole seconds, as llama-server
        listed = decisions(server, {"model": "m", "input": "x", "questions": OPENAI_QUESTIONS})
        assert listed.status_code == 429
        assert float(listed.headers["Retry-After"]) > 0
        assert int(listed.headers["retry-after-ms"]) > 0
        assert server.stats.faults == {"rate_limit": 2}


def test_server_errors_and_broken_bodies() -> None:
    body = {"state": STATE, "questions": SYSTEMONE_QUESTIONS}
    with FakeDecisionServer(faults=Faults(status_5xx=1.0)) as server:
        reply = systemone(server, body)
        assert reply.status_code in (500, 502, 503)
        assert reply.json()["error"]["code"] == reply.status_code
        server.faults = Faults(malformed_body=1.0)
        malformed = systemone(server, body)
        assert malformed.status_code == 200
        with pytest.raises(ValueError):
            malformed.json()
        server.faults = Faults(drop_connection=1.0)
        with pytest.raises(httpx.HTTPError):
            systemone(server, body)
        server.faults = Faults()
        assert systemone(server, body).status_code == 200
        assert server.stats.faults == {"status_5xx": 1, "malformed_body": 1, "drop_connection": 1}


def test_validation_comes_before_faults() -> None:
    with FakeDecisionServer(faults=Faults(status_5xx=1.0)) as server:
        assert systemone(server, {"state": STATE, "questions": {}}).status_code == 422


def test_an_api_key_is_required_when_set() -> None:
    with FakeDecisionServer(api_key="sk-right") as server:
        body = {"state": STATE, "questions": SYSTEMONE_QUESTIONS}
        wrong = systemone(server, body, authorization="Bearer sk-wrong")
        assert wrong.status_code == 401
        assert wrong.json()["error"]["type"] == "authentication_error"
        assert systemone(server, body, authorization="Bearer sk-right").status_code == 200
        with pytest.raises(openai.AuthenticationError):
            sdk(server).decisions.create(model="m", input="x", questions=OPENAI_QUESTIONS)  # type: ignore[arg-type]


@pytest.mark.timeout(60)
def test_latency_and_a_prompt_stop() -> None:
    server = FakeDecisionServer(latency_s=3600.0).start()
    port = server.port
    outcome: list[object] = []

    def call() -> None:
        try:
            outcome.append(systemone(server, {"state": STATE, "questions": SYSTEMONE_QUESTIONS}))
        except httpx.HTTPError as error:
            outcome.append(error)

    worker = threading.Thread(target=call)
    worker.start()
    deadline = time.monotonic() + 5
    while server.stats.requests == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    server.stop()
    # stop() waits a bounded time for its handlers: none left means the hour was cut short.
    assert not [t for t in threading.enumerate() if t.name.startswith(f"veracity-fake-llm-{port}")]
    worker.join(30)
    assert not worker.is_alive()
    assert not server.running and outcome
    with pytest.raises(RuntimeError, match="FakeDecisionServer is not running"):
        _ = server.base_url


def test_unknown_routes_are_404(server: FakeDecisionServer) -> None:
    assert httpx.post(f"{server.base_url}/chat/completions", json={}, timeout=10).status_code == 404
    assert httpx.get(server.systemone_url, timeout=10).status_code == 404


def test_the_decision_fakes_are_exported() -> None:
    import veracity.testing

    names = {
        "DECISION_MANGLINGS",
        "DecisionExchange",
        "DecisionMangleHook",
        "DecisionMangling",
        "DecisionResponder",
        "DecisionServerStats",
        "FakeDecisionServer",
        "OverlapDecider",
        "mangle_decision",
    }
    assert names <= set(veracity.testing.__all__)
    assert veracity.testing.__all__ == sorted(veracity.testing.__all__, key=_ruff_order)
    for name in names:
        assert getattr(veracity.testing, name) is not None


def _ruff_order(name: str) -> tuple[int, str]:
    """``__all__``'s order (ruff's RUF022): constants, then classes, then the rest."""
    if name.isupper():
        return 0, name
    return (1 if name[0].isupper() else 2), name
