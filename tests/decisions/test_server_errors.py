"""Errors of a decision server, as a user can act on them: a chat model behind the
endpoint, no endpoint, validation details, throttling, failing and dead servers."""

from __future__ import annotations

import socket
import time
from typing import Any

import pytest

from tests.decisions.endpoint import Asked, Reply, serving
from tests.decisions.test_systemone import FAST_RETRY, answer_all, claim, systemone
from veracity.decisions import DecisionRequest
from veracity.decisions.openai_decisions import OpenAIDecisions
from veracity.transport import CallFailedError, JudgeFatalError, RetryPolicy

REQUEST = DecisionRequest("state", (claim(0),))


async def decide_with(answer: Any, **options: Any) -> tuple[Any, list[Asked]]:
    with serving(answer) as server:
        model = systemone(server.base_url, **options)
        try:
            return await model.decide(REQUEST, iteration=0), server.asked
        finally:
            await model.aclose()


async def test_a_chat_model_behind_the_endpoint_is_fatal_with_advice() -> None:
    # llama-server's answer when the model it loaded is a chat model.
    body = {
        "error": {"code": 501, "message": "not a decision model", "type": "not_supported_error"}
    }
    with pytest.raises(JudgeFatalError) as raised:
        await decide_with(lambda _: Reply(body, status=501))
    message = str(raised.value)
    assert "serves a chat model, not a decision model" in message
    assert "/v1/systemone" in message and "not a decision model" in message
    assert "Laya, Julia-1 or Kev" in message and "--judge openai/MODEL" in message


async def test_no_system_one_endpoint_is_fatal() -> None:
    with pytest.raises(JudgeFatalError, match="no System One endpoint") as raised:
        await decide_with(lambda _: Reply({"error": "not found"}, status=404))
    assert "--base-url" in str(raised.value)


async def test_validation_details_on_one_line() -> None:
    detail = [
        {"loc": ["body", "questions", "claim_0", "type"], "msg": "unknown type\n'choice'"},
        {"loc": ["body", "state"], "msg": "field required"},
    ]
    with pytest.raises(CallFailedError) as raised:
        await decide_with(lambda _: Reply({"detail": detail}, status=422))
    message = str(raised.value)
    assert message.startswith("the server refused the request (HTTP 422)")
    assert "body.questions.claim_0.type: unknown type 'choice'" in message
    assert "body.state: field required" in message
    assert "\n" not in message


async def test_429_waits_out_retry_after() -> None:
    answers = iter([Reply({"error": "slow down"}, status=429, headers={"Retry-After": "0.3"})])

    started = time.perf_counter()
    reply, asked = await decide_with(lambda a: next(answers, None) or answer_all(a))
    assert time.perf_counter() - started >= 0.3
    assert len(asked) == 2
    assert not reply.answers["claim_0"].refused


async def test_5xx_is_retried() -> None:
    failures = iter([Reply({"error": "boom"}, status=503), Reply({"error": "boom"}, status=500)])
    reply, asked = await decide_with(lambda a: next(failures, None) or answer_all(a))
    assert len(asked) == 3
    assert reply.usage.calls == 1 and not reply.answers["claim_0"].refused


async def test_a_server_failing_every_attempt_is_a_call_failure() -> None:
    with pytest.raises(CallFailedError, match="3 failed attempts"):
        await decide_with(lambda _: Reply({"error": "boom"}, status=500))


async def test_a_timeout_is_retried_then_fatal_when_nothing_ever_answered() -> None:
    def slow(asked: Asked) -> Reply:
        time.sleep(0.5)
        return answer_all(asked)

    with pytest.raises(JudgeFatalError, match=r"no complete reply within 0\.1 s"):
        await decide_with(slow, timeout_s=0.1)


async def test_a_dead_port_is_fatal_naming_the_url() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = systemone(
        f"http://127.0.0.1:{port}/v1", retry=RetryPolicy(base_delay_s=0.01, max_delay_s=0.02)
    )
    with pytest.raises(JudgeFatalError, match=f"cannot connect to http://127.0.0.1:{port}/v1"):
        await model.decide(REQUEST, iteration=0)
    await model.aclose()


async def test_openai_decisions_errors_read_the_same() -> None:
    with serving(lambda _: Reply({"error": {"message": "nope"}}, status=501)) as server:
        model = OpenAIDecisions(
            "gpt-6-luna", base_url=server.base_url, api_key="k" * 12, retry=FAST_RETRY
        )
        with pytest.raises(JudgeFatalError, match="does not implement OpenAI's Decisions API"):
            await model.decide(REQUEST, iteration=0)
        await model.aclose()
    assert server.asked[0].path == "/v1/decisions"
