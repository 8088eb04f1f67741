"""Round trips through the real OpenAI and Anthropic SDKs against FakeLLMServer."""

from __future__ import annotations

import json
import math
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import anthropic
import openai
import pytest
from anthropic.types import MessageParam, ToolChoiceToolParam, ToolParam
from openai.types.chat import ChatCompletionMessageParam
from openai.types.shared_params import ResponseFormatJSONSchema

from veracity.testing import (
    EMBEDDING_DIM,
    ChatRequest,
    FakeLLMServer,
    ScriptExhaustedError,
    hashed_embedding,
    scripted,
)

USER: list[ChatCompletionMessageParam] = [{"role": "user", "content": "Say hello."}]
ANTHROPIC_USER: list[MessageParam] = [{"role": "user", "content": "Say hello."}]

ClientFor = Callable[[FakeLLMServer], openai.OpenAI]


def test_openai_chat_round_trip_records_usage_and_body(client_for: ClientFor) -> None:
    with FakeLLMServer(scripted(["hello there", "second"])) as server:
        client = client_for(server)
        first = client.chat.completions.create(model="judge-1", messages=USER, temperature=0)
        second = client.chat.completions.create(model="judge-1", messages=USER)
        stats = server.stats

    assert first.choices[0].message.content == "hello there"
    assert first.choices[0].message.role == "assistant"
    assert first.choices[0].finish_reason == "stop"
    assert first.object == "chat.completion"
    assert first.model == "judge-1"
    assert second.choices[0].message.content == "second"
    assert first.usage is not None and second.usage is not None
    assert first.usage.prompt_tokens == len("Say hello.") // 4 + 1
    assert first.usage.completion_tokens == len("hello there") // 4 + 1
    assert first.usage.total_tokens == first.usage.prompt_tokens + first.usage.completion_tokens
    assert stats.requests == 2
    assert stats.completions == 2
    assert stats.by_status == {200: 2}
    assert stats.faults == {}
    assert stats.prompt_tokens == first.usage.prompt_tokens + second.usage.prompt_tokens
    assert stats.completion_tokens == first.usage.completion_tokens + second.usage.completion_tokens
    assert server.requests[0]["model"] == "judge-1"
    assert server.requests[0]["temperature"] == 0
    assert server.requests[0]["messages"] == USER


async def test_async_openai_client_round_trip() -> None:
    with FakeLLMServer(scripted(['{"claims": []}'])) as server:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key="test", max_retries=0)
        async with client:
            reply = await client.chat.completions.create(model="m", messages=USER)
    assert reply.choices[0].message.content == '{"claims": []}'


def test_responder_sees_api_neutral_request(client_for: ClientFor) -> None:
    seen: list[ChatRequest] = []

    def respond(request: ChatRequest) -> str:
        seen.append(request)
        return "ok"

    with FakeLLMServer(respond) as server:
        client_for(server).chat.completions.create(
            model="m",
            messages=[
                {"role": "system", "content": "be terse"},
                {"role": "user", "content": [{"type": "text", "text": "part one"}]},
            ],
            response_format={"type": "json_object"},
        )
        anthropic.Anthropic(
            base_url=server.anthropic_base_url, api_key="test", max_retries=0
        ).messages.create(
            model="claude-x", max_tokens=50, system="sys text", messages=ANTHROPIC_USER
        )

    assert seen[0].api == "openai"
    assert seen[0].messages == (("system", "be terse"), ("user", "part one"))
    assert seen[0].response_format == {"type": "json_object"}
    assert seen[1].api == "anthropic"
    assert seen[1].model == "claude-x"
    assert seen[1].messages == (("system", "sys text"), ("user", "Say hello."))
    assert seen[1].system == "sys text"
    assert seen[1].raw["max_tokens"] == 50


def test_anthropic_text_round_trip() -> None:
    with FakeLLMServer(scripted(["bonjour"])) as server:
        client = anthropic.Anthropic(
            base_url=server.anthropic_base_url, api_key="test", max_retries=0
        )
        message = client.messages.create(model="claude-x", max_tokens=100, messages=ANTHROPIC_USER)
        stats = server.stats

    assert message.type == "message"
    assert message.role == "assistant"
    assert message.model == "claude-x"
    assert message.stop_reason == "end_turn"
    block = message.content[0]
    assert block.type == "text" and block.text == "bonjour"
    assert message.usage.input_tokens == len("Say hello.") // 4 + 1
    assert message.usage.output_tokens == len("bonjour") // 4 + 1
    assert stats.completions == 1


def test_anthropic_forced_tool_use_returns_parsed_input() -> None:
    reply = '{"claims": ["Paris is in France."]}'
    tool: ToolParam = {
        "name": "record_claims",
        "description": "Record the claims.",
        "input_schema": {"type": "object", "properties": {"claims": {"type": "array"}}},
    }
    with FakeLLMServer(scripted([reply, "not json"])) as server:
        client = anthropic.Anthropic(
            base_url=server.anthropic_base_url, api_key="test", max_retries=0
        )
        forced: ToolChoiceToolParam = {"type": "tool", "name": "record_claims"}
        message = client.messages.create(
            model="c", max_tokens=100, messages=ANTHROPIC_USER, tools=[tool], tool_choice=forced
        )
        fallback = client.messages.create(
            model="c", max_tokens=100, messages=ANTHROPIC_USER, tools=[tool], tool_choice=forced
        )

    block = message.content[0]
    assert message.stop_reason == "tool_use"
    assert block.type == "tool_use"
    assert block.name == "record_claims"
    assert block.id.startswith("toolu_")
    assert block.input == {"claims": ["Paris is in France."]}
    # A reply that is no JSON object cannot be a tool input: it comes back as text.
    assert fallback.content[0].type == "text"
    assert fallback.content[0].text == "not json"


def test_scripted_replies_exhausted_give_a_clear_500(client_for: ClientFor) -> None:
    with FakeLLMServer(scripted(["only one"])) as server:
        client = client_for(server)
        assert client.chat.completions.create(model="m", messages=USER).choices[0].message.content
        with pytest.raises(openai.InternalServerError) as caught:
            client.chat.completions.create(model="m", messages=USER)
        assert server.stats.by_status == {200: 1, 500: 1}
    assert caught.value.status_code == 500
    assert "exhausted" in caught.value.message
    assert ScriptExhaustedError.__name__ in caught.value.message


def test_json_schema_unsupported_is_a_bad_request(client_for: ClientFor) -> None:
    schema: ResponseFormatJSONSchema = {
        "type": "json_schema",
        "json_schema": {"name": "x", "schema": {"type": "object"}},
    }
    with FakeLLMServer(scripted(["{}"]), supports_json_schema=False) as server:
        client = client_for(server)
        with pytest.raises(openai.BadRequestError) as caught:
            client.chat.completions.create(model="m", messages=USER, response_format=schema)
        plain = client.chat.completions.create(
            model="m", messages=USER, response_format={"type": "json_object"}
        )
    assert caught.value.status_code == 400
    assert caught.value.body == {
        "message": "response_format json_schema is not supported",
        "type": "invalid_request_error",
        "param": "response_format",
        "code": None,
    }
    assert plain.choices[0].message.content == "{}"


def test_embeddings_are_deterministic_unit_vectors(client_for: ClientFor) -> None:
    texts = ["Paris is the capital of France", "the capital of France is Paris", "bananas"]
    with FakeLLMServer() as server:
        client = client_for(server)
        result = client.embeddings.create(model="embed", input=texts)
        floats = client.embeddings.create(model="embed", input=texts[0], encoding_format="float")
        embeddings = server.stats.embeddings
        server_formats = [body["encoding_format"] for body in server.requests]

    assert result.object == "list"
    assert [item.index for item in result.data] == [0, 1, 2]
    vectors = [item.embedding for item in result.data]
    assert all(len(vector) == EMBEDDING_DIM for vector in vectors)
    # The SDK asks for base64 (float32) by default and decodes it.
    assert server_formats == ["base64", "float"]
    assert all(math.isclose(sum(v * v for v in vector), 1.0, rel_tol=1e-5) for vector in vectors)
    assert vectors[0] == pytest.approx(hashed_embedding(texts[0]), abs=1e-6)
    assert floats.data[0].embedding == hashed_embedding(texts[0])
    same_words = sum(a * b for a, b in zip(vectors[0], vectors[1], strict=True))
    assert same_words == pytest.approx(1.0, abs=1e-5)  # bag of words: word order does not matter
    assert result.usage.prompt_tokens > 0
    assert embeddings == 2
    assert hashed_embedding("") == [0.0] * EMBEDDING_DIM


def test_unknown_path_and_bad_json_get_json_errors(server: FakeLLMServer) -> None:
    def post(path: str, data: bytes) -> tuple[int, dict[str, object]]:
        url = server.anthropic_base_url + path
        request = urllib.request.Request(url, data=data, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    status, body = post("/v1/nothing-here", b"{}")
    assert status == 404
    assert "error" in body
    status, body = post("/v1/chat/completions", b"{not json")
    assert status == 400
    assert "error" in body
    assert server.stats.by_status == {404: 1, 400: 1}


def test_concurrent_requests_are_served_in_parallel(client_for: ClientFor) -> None:
    with FakeLLMServer(latency_s=0.2) as server:
        client = client_for(server)

        def ask(_: int) -> str | None:
            return (
                client.chat.completions.create(model="m", messages=USER).choices[0].message.content
            )

        with ThreadPoolExecutor(max_workers=20) as pool:
            replies = list(pool.map(ask, range(20)))
        stats = server.stats

    assert replies == ['{"error": "unknown task"}'] * 20
    assert stats.completions == 20
    assert stats.max_concurrent >= 10


def test_64_keep_alive_connections_at_once(client_for: ClientFor) -> None:
    barrier = threading.Barrier(64)
    with FakeLLMServer(latency_s=0.1) as server:
        client = client_for(server)  # its pool opens one connection per concurrent call

        def ask_twice(_: int) -> int:
            barrier.wait(timeout=10)
            for _ in range(2):
                client.chat.completions.create(model="m", messages=USER)
            return 2

        with ThreadPoolExecutor(max_workers=64) as pool:
            done = sum(pool.map(ask_twice, range(64)))
        stats = server.stats

    assert done == 128
    assert stats.by_status == {200: 128}
    assert stats.max_concurrent >= 32


def test_latency_callable_is_given_the_request(client_for: ClientFor) -> None:
    given: list[str] = []

    def latency(request: ChatRequest) -> float:
        given.append(request.model)
        return 0.3 if request.model == "slow" else 0.0

    with FakeLLMServer(latency_s=latency) as server:
        client = client_for(server)
        client.chat.completions.create(model="fast", messages=USER)
        started = time.monotonic()
        client.chat.completions.create(model="slow", messages=USER)
        slow = time.monotonic() - started
    assert given == ["fast", "slow"]
    assert slow >= 0.3  # the latency it returned was waited out


def test_reset_stats_clears_counters_and_requests(
    server: FakeLLMServer, client_for: ClientFor
) -> None:
    client_for(server).chat.completions.create(model="m", messages=USER)
    assert server.stats.requests == 1 and len(server.requests) == 1
    server.reset_stats()
    assert server.stats.requests == 0
    assert server.stats.completions == 0
    assert server.requests == []
