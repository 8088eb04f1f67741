"""The OpenAI and Anthropic judges over real HTTP, against veracity's fake server."""

from __future__ import annotations

import asyncio
import json
import socket
import time

import pytest

from veracity.chat import AnthropicChat, OpenAIChat
from veracity.judges import JudgeFatalError, LLMJudge
from veracity.prompts import CLAIM_EXTRACTION, render_extraction
from veracity.testing import FakeLLMServer, Faults, scripted
from veracity.transport import CallFailedError, RetryPolicy
from veracity.types import Verdict

FAST_RETRY = RetryPolicy(max_attempts=8, base_delay_s=0.01, max_delay_s=0.05)
CONTEXTS = ("Paris is the capital and largest city of France.",)


def openai_judge(server: FakeLLMServer, **options: object) -> LLMJudge:
    chat = OpenAIChat(
        "judge-model",
        base_url=server.base_url,
        api_key="test-key",
        retry=options.pop("retry", FAST_RETRY),  # type: ignore[arg-type]
        **options,  # type: ignore[arg-type]
    )
    return LLMJudge(chat)


async def test_openai_judge_round_trip_with_json_schema() -> None:
    with FakeLLMServer() as server:
        judge = openai_judge(server)
        claims = await judge.extract_claims(
            "Tell me about Paris.", "Paris is the capital of France.", iteration=0
        )
        assert claims.value == ("Paris is the capital of France.",)
        verdicts = await judge.verify_claims(claims.value, CONTEXTS, iteration=0)
        await judge.aclose()
        body = server.requests[0]
    assert verdicts.value is not None
    assert verdicts.value[0].verdict is Verdict.SUPPORTED
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["name"] == "claim_extraction"
    assert body["temperature"] == 0.0
    assert claims.usage.calls == 1 and claims.usage.input_tokens > 0


async def test_plain_text_mode_sends_no_response_format() -> None:
    with FakeLLMServer() as server:
        judge = openai_judge(server, structured_output="text")
        outcome = await judge.extract_claims("q", "Paris is in France.", iteration=0)
        await judge.aclose()
        assert "response_format" not in server.requests[0]
    assert outcome.ok


async def test_429_is_retried_honouring_retry_after() -> None:
    faults = Faults(rate_limit_rps=5.0, rate_limit_burst=1.0)
    with FakeLLMServer(faults=faults) as server:
        judge = openai_judge(server)
        started = time.perf_counter()
        outcomes = [
            await judge.extract_claims("q", f"Fact number {i} holds.", iteration=0)
            for i in range(6)
        ]
        elapsed = time.perf_counter() - started
        await judge.aclose()
        stats = server.stats
    assert all(o.ok for o in outcomes)
    assert stats.by_status.get(429, 0) > 0
    assert elapsed >= 0.9  # 6 requests at 5 per second, burst 1: the client waited


@pytest.mark.parametrize(
    "faults",
    [
        Faults(status_5xx=0.5),
        Faults(drop_connection=0.5),
        Faults(malformed_body=0.5),
        Faults(truncated_body=0.5),
    ],
    ids=["5xx", "drop", "malformed-body", "truncated-body"],
)
async def test_transport_faults_are_retried(faults: Faults) -> None:
    with FakeLLMServer(faults=faults, seed=3) as server:
        judge = openai_judge(server)
        outcomes = [
            await judge.extract_claims("q", f"Fact number {i} holds.", iteration=0)
            for i in range(8)
        ]
        await judge.aclose()
        stats = server.stats
    assert all(o.ok for o in outcomes), [o.error for o in outcomes]
    assert stats.requests > 8  # some attempts failed and were retried
    assert sum(stats.faults.values()) == stats.requests - 8


async def test_attempts_running_out_is_a_judge_error_not_an_exception() -> None:
    with FakeLLMServer(faults=Faults(status_5xx=1.0)) as server:
        judge = openai_judge(server, retry=RetryPolicy(max_attempts=3, base_delay_s=0.01))
        outcome = await judge.extract_claims("q", "Paris is in France.", iteration=0)
        await judge.aclose()
        requests = server.stats.requests
    assert outcome.value is None
    assert outcome.error is not None and "after 3 failed attempts" in outcome.error
    assert requests == 3


async def test_timeout_is_retried_then_reported() -> None:
    served = iter([0.0])  # the first request is answered at once, every later one late
    with FakeLLMServer(latency_s=lambda _: next(served, 1.0)) as server:
        judge = openai_judge(
            server, timeout_s=0.2, retry=RetryPolicy(max_attempts=2, base_delay_s=0.01)
        )
        answered = await judge.extract_claims("q", "Paris is in France.", iteration=0)
        outcome = await judge.extract_claims("q", "Lyon is in France.", iteration=0)
        await judge.aclose()
        requests = server.stats.requests
    assert answered.value is not None
    assert outcome.value is None
    assert outcome.error is not None and "no complete reply within 0.2 s" in outcome.error
    assert requests == 3


async def test_a_judge_that_never_answers_in_time_is_fatal_after_three_attempts() -> None:
    with FakeLLMServer(latency_s=1.0) as server:
        judge = openai_judge(server, timeout_s=0.2)
        with pytest.raises(JudgeFatalError, match=r"within 0\.2 s .*3 attempts.*longer timeout"):
            await judge.extract_claims("q", "Paris is in France.", iteration=0)
        await judge.aclose()
        requests = server.stats.requests
    assert requests == 3


async def test_anthropic_judge_uses_a_forced_tool_call() -> None:
    with FakeLLMServer() as server:
        chat = AnthropicChat(
            "claude-test", base_url=server.anthropic_base_url, api_key="k", retry=FAST_RETRY
        )
        judge = LLMJudge(chat)
        claims = await judge.extract_claims("q", "Paris is the capital of France.", iteration=0)
        assert claims.value is not None
        verdicts = await judge.verify_claims(claims.value, CONTEXTS, iteration=0)
        await judge.aclose()
        body = server.requests[0]
    assert verdicts.value is not None and verdicts.value[0].verdict is Verdict.SUPPORTED
    assert body["tool_choice"] == {"type": "tool", "name": "claim_extraction"}
    assert body["system"].startswith("You split an answer into claims.")
    assert [m["role"] for m in body["messages"]] == ["user"]


async def test_anthropic_text_mode_and_retries() -> None:
    with FakeLLMServer(faults=Faults(status_5xx=0.5), seed=1) as server:
        chat = AnthropicChat(
            "claude-test",
            base_url=server.anthropic_base_url,
            api_key="k",
            retry=FAST_RETRY,
            structured_output="text",
        )
        outcome = await LLMJudge(chat).extract_claims("q", "Paris is in France.", iteration=0)
        await chat.aclose()
        assert "tools" not in server.requests[0]
    assert outcome.ok


async def test_scripted_server_replies_go_through_the_parser() -> None:
    replies = ['Sure! ```json\n{"claims": ["Paris is in France."]}\n```', "unused"]
    with FakeLLMServer(scripted(replies)) as server:
        judge = openai_judge(server)
        outcome = await judge.extract_claims("q", "Paris is in France.", iteration=0)
        await judge.aclose()
    assert outcome.value == ("Paris is in France.",)


def test_rendered_prompt_marks_untrusted_blocks() -> None:
    prompt = CLAIM_EXTRACTION.render(render_extraction("q", "an answer"))
    assert "<answer>\nan answer\n</answer>" in prompt.messages[1].content


def test_missing_credentials_are_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        OpenAIChat("m")


def test_chat_call_error_is_exported() -> None:
    assert issubclass(CallFailedError, Exception)


async def test_wrong_key_is_fatal_at_once() -> None:
    with FakeLLMServer(api_key="right-key") as server:
        chat = OpenAIChat("m", base_url=server.base_url, api_key="wrong-key", retry=FAST_RETRY)
        with pytest.raises(JudgeFatalError, match="401"):
            await LLMJudge(chat).extract_claims("q", "Paris is in France.", iteration=0)
        await chat.aclose()
        assert server.stats.requests == 1  # no retry can fix a bad key


async def test_right_key_is_sent_as_a_bearer_token() -> None:
    with FakeLLMServer(api_key="right-key") as server:
        chat = OpenAIChat("m", base_url=server.base_url, api_key="right-key", retry=FAST_RETRY)
        outcome = await LLMJudge(chat).extract_claims("q", "Paris is in France.", iteration=0)
        await chat.aclose()
    assert outcome.ok


async def test_anthropic_wrong_key_is_fatal() -> None:
    with FakeLLMServer(api_key="right-key") as server:
        chat = AnthropicChat(
            "c", base_url=server.anthropic_base_url, api_key="nope", retry=FAST_RETRY
        )
        with pytest.raises(JudgeFatalError, match="401"):
            await LLMJudge(chat).extract_claims("q", "Paris is in France.", iteration=0)
        await chat.aclose()


async def test_rpm_spaces_calls_so_the_endpoint_never_throttles() -> None:
    faults = Faults(rate_limit_rps=20.0, rate_limit_burst=2.0)
    with FakeLLMServer(faults=faults) as server:
        judge = openai_judge(server, rpm=600.0, concurrency=8)  # 10 a second, half the limit
        started = time.perf_counter()
        outcomes = await asyncio.gather(
            *(judge.extract_claims("q", f"Fact {i} holds.", iteration=0) for i in range(12))
        )
        elapsed = time.perf_counter() - started
        await judge.aclose()
        stats = server.stats
    assert all(o.ok for o in outcomes)
    assert stats.by_status.get(429, 0) == 0
    assert elapsed >= 11 / 10  # 12 starts, evenly spaced at 10 a second


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_an_endpoint_nothing_listens_on_is_fatal_after_three_attempts() -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    chat = OpenAIChat("m", base_url=url, api_key="k")  # the default retry policy
    # 3 attempts, not the 8 (and their backoff) a reachable endpoint gets.
    with pytest.raises(
        JudgeFatalError, match=f"cannot connect to {url}.*3 attempts.*check the base URL"
    ):
        await LLMJudge(chat).extract_claims("q", "Paris is in France.", iteration=0)
    await chat.aclose()


async def test_an_endpoint_that_goes_away_mid_run_fails_only_the_calls_it_drops() -> None:
    with FakeLLMServer(scripted([json.dumps({"claims": ["Paris is in France."]})])) as server:
        judge = openai_judge(server, retry=RetryPolicy(max_attempts=3, base_delay_s=0.01))
        first = await judge.extract_claims("q", "Paris is in France.", iteration=0)
    # The server has stopped: the endpoint answered before, so this is a failed call
    # (judge_error for its result), not the end of the run.
    second = await judge.extract_claims("q", "Lyon is in France.", iteration=0)
    await judge.aclose()
    assert first.ok
    assert second.value is None and second.error is not None
    assert "after 3 failed attempts" in second.error and "cannot connect" in second.error
