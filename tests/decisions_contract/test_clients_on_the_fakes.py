"""veracity's own decision clients read the fake decision server: the fake's shapes are
the ones the clients were written for, and its limits, refusals and chat-model 501 behave
as the clients expect of a real server."""

from __future__ import annotations

import pytest

from veracity.decisions import DecisionRequest, Option, Question, ServerLimits
from veracity.decisions.openai_decisions import OpenAIDecisions
from veracity.decisions.systemone import SystemOne
from veracity.testing import FakeDecisionServer
from veracity.transport import JudgeFatalError, RetryPolicy

FAST = RetryPolicy(max_attempts=2, base_delay_s=0.01, max_delay_s=0.02)
STATE = "Paris is the capital of France. The Eiffel Tower was finished in 1889."
VERDICTS = tuple(Option(v) for v in ("supported", "contradicted", "not_enough_info"))
QUESTIONS = (
    Question("claim_1", "choice", "Claim: The Eiffel Tower was finished in 1889.", VERDICTS),
    Question("claim_2", "choice", "Claim: Berlin has large parks.", VERDICTS),
    Question("capital", "predicate", "Paris is the capital of France"),
    Question("level", "score", "Paris capital", (Option("low"), Option("mid"), Option("high"))),
)
REQUEST = DecisionRequest(STATE, QUESTIONS)


@pytest.mark.parametrize("client_type", [SystemOne, OpenAIDecisions])
async def test_a_client_reads_the_fakes_answers(
    client_type: type[SystemOne] | type[OpenAIDecisions],
) -> None:
    with FakeDecisionServer(refuse={"claim_2"}) as server:
        client = client_type("fake-model", base_url=server.base_url, api_key="k", retry=FAST)
        try:
            reply = await client.decide(REQUEST, iteration=0)
        finally:
            await client.aclose()
        assert server.stats.decisions == 1
    answers = reply.answers
    assert answers["claim_1"].most_likely() == "supported"
    assert answers["claim_2"].refused
    assert answers["capital"].probability("true") > 0.9
    assert answers["level"].expected_level() > 1.0
    assert reply.usage.calls == 1
    assert reply.usage.input_tokens == server.stats.input_tokens > 0


async def test_a_client_splits_at_the_fakes_limits() -> None:
    with FakeDecisionServer(limits=ServerLimits(max_questions=2, max_options=26)) as server:
        client = SystemOne("fake-model", base_url=server.base_url, api_key="k", retry=FAST)
        try:
            reply = await client.decide(REQUEST, iteration=0)
        finally:
            await client.aclose()
        stats = server.stats
    assert not any(answer.refused for answer in reply.answers.values())
    assert stats.by_status.get(413) == 1  # refused once, then asked within the limit
    assert stats.decisions == 2 and stats.questions == len(QUESTIONS)
    assert client.limits.max_questions == 2


async def test_a_chat_model_behind_the_fake_is_fatal() -> None:
    with FakeDecisionServer(decision_model=False) as server:
        client = SystemOne("chat-model", base_url=server.base_url, api_key="k", retry=FAST)
        try:
            with pytest.raises(JudgeFatalError, match="decision model"):
                await client.decide(REQUEST, iteration=0)
        finally:
            await client.aclose()
