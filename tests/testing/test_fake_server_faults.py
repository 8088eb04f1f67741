"""Injected faults, seen through the real SDK clients."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable

import anthropic
import openai
import pytest
from anthropic.types import MessageParam
from openai.types.chat import ChatCompletionMessageParam

from tests.helpers import openai_messages
from veracity.prompts import CLAIM_VERIFICATION, render_verification
from veracity.testing import MANGLINGS, FakeLLMServer, Faults, mangle_content, scripted

USER: list[ChatCompletionMessageParam] = [{"role": "user", "content": "Say hello."}]
ANTHROPIC_USER: list[MessageParam] = [{"role": "user", "content": "Say hello."}]

ClientFor = Callable[[FakeLLMServer], openai.OpenAI]


def test_rate_limit_gives_429_with_parseable_retry_after(client_for: ClientFor) -> None:
    with FakeLLMServer(faults=Faults(rate_limit_rps=4.0, rate_limit_burst=1.0)) as server:
        client = client_for(server)
        client.chat.completions.create(model="m", messages=USER)
        with pytest.raises(openai.RateLimitError) as caught:
            client.chat.completions.create(model="m", messages=USER)
        headers = caught.value.response.headers
        retry_after = float(headers["Retry-After"])
        retry_after_ms = int(headers["retry-after-ms"])
        time.sleep(retry_after)
        client.chat.completions.create(model="m", messages=USER)  # a token is free again
        stats = server.stats

    assert 0 < retry_after <= 0.25  # one token every 0.25 s
    assert retry_after_ms == pytest.approx(retry_after * 1000, abs=1)
    assert caught.value.status_code == 429
    assert caught.value.code == "rate_limit_exceeded"
    assert stats.by_status == {200: 2, 429: 1}
    assert stats.faults == {"rate_limit": 1}


def test_rate_limit_speaks_anthropic_to_the_anthropic_sdk() -> None:
    with FakeLLMServer(faults=Faults(rate_limit_rps=1.0)) as server:
        client = anthropic.Anthropic(
            base_url=server.anthropic_base_url, api_key="test", max_retries=0
        )
        client.messages.create(model="c", max_tokens=10, messages=ANTHROPIC_USER)
        with pytest.raises(anthropic.RateLimitError) as caught:
            client.messages.create(model="c", max_tokens=10, messages=ANTHROPIC_USER)
    assert float(caught.value.response.headers["retry-after"]) > 0
    assert caught.value.body == {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": "Rate limit reached; retry later."},
    }


def test_status_5xx_raises_internal_server_error(client_for: ClientFor) -> None:
    with FakeLLMServer(scripted(["kept"]), faults=Faults(status_5xx=1.0)) as server:
        client = client_for(server)
        statuses = []
        for _ in range(6):
            with pytest.raises(openai.InternalServerError) as caught:
                client.chat.completions.create(model="m", messages=USER)
            statuses.append(caught.value.status_code)
        server.faults = Faults()
        # Failed requests did not consume the scripted reply.
        reply = client.chat.completions.create(model="m", messages=USER)
        stats = server.stats
    assert set(statuses) <= {500, 502, 503}
    assert reply.choices[0].message.content == "kept"
    assert stats.faults == {"status_5xx": 6}
    assert stats.completions == 1


def test_drop_connection_raises_connection_error(client_for: ClientFor) -> None:
    with FakeLLMServer(faults=Faults(drop_connection=1.0)) as server:
        with pytest.raises(openai.APIConnectionError):
            client_for(server).chat.completions.create(model="m", messages=USER)
        stats = server.stats
    assert stats.faults == {"drop_connection": 1}
    assert stats.by_status == {}  # nothing was sent
    assert stats.requests == 1


def test_malformed_body_raises(client_for: ClientFor) -> None:
    with FakeLLMServer(faults=Faults(malformed_body=1.0)) as server:
        # The SDK lets the JSON decoding error of a 200 response escape as it is.
        with pytest.raises((ValueError, openai.APIError)):
            client_for(server).chat.completions.create(model="m", messages=USER)
        assert server.stats.faults == {"malformed_body": 1}
        assert server.stats.by_status == {200: 1}


def test_truncated_body_raises(client_for: ClientFor) -> None:
    with FakeLLMServer(faults=Faults(truncated_body=1.0)) as server:
        with pytest.raises(openai.APIConnectionError):
            client_for(server).chat.completions.create(model="m", messages=USER)
        assert server.stats.faults == {"truncated_body": 1}


def test_truncated_body_sends_fewer_bytes_than_promised() -> None:
    with FakeLLMServer(faults=Faults(truncated_body=1.0)) as server:
        body = json.dumps({"model": "m", "messages": USER}).encode()
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            sock.sendall(
                b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                b"Content-Type: application/json\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            received = b""
            while chunk := sock.recv(65536):
                received += chunk
    head, _, payload = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200")
    promised = int(
        next(line for line in head.split(b"\r\n") if line.startswith(b"Content-Length")).split(
            b":"
        )[1]
    )
    assert 0 < len(payload) < promised


def test_malformed_content_always_differs_and_is_recorded(client_for: ClientFor) -> None:
    verification = CLAIM_VERIFICATION.render(
        render_verification(["Paris is in France.", "Paris is in Peru."], ("Paris is in France.",))
    )
    messages = openai_messages(verification.messages)
    with FakeLLMServer() as clean:
        expected = client_for(clean).chat.completions.create(model="m", messages=messages)
    original = expected.choices[0].message.content
    assert original is not None and json.loads(original)["verdicts"]

    with FakeLLMServer(faults=Faults(malformed_content=1.0), seed=7) as server:
        client = client_for(server)
        contents = [
            client.chat.completions.create(model="m", messages=messages).choices[0].message.content
            for _ in range(30)
        ]
        stats = server.stats
    assert all(content is not None and content != original for content in contents)
    assert stats.faults == {"malformed_content": 30}
    assert sum(stats.manglings.values()) == 30
    assert len(stats.manglings) >= 4  # several kinds were drawn
    assert set(stats.manglings) <= set(MANGLINGS)
    assert stats.completions == 30
    if "legacy_text" in stats.manglings:
        assert "Final verdict for each statement in order: Yes. No." in contents


def test_mangle_content_kinds() -> None:
    reply = json.dumps({"verdicts": [{"verdict": "supported"}, {"verdict": "contradicted"}]})
    mangled = {kind: mangle_content(reply, kind) for kind in MANGLINGS}
    assert all(result.text != reply for result in mangled.values())
    assert mangled["fenced"].text == f"```json\n{reply}\n```"
    assert mangled["prose"].text.startswith("Sure! Here is the result:")
    assert mangled["trailing_comma"].text.endswith("],}")
    assert '"' not in mangled["single_quotes"].text
    assert reply.startswith(mangled["truncated"].text)
    assert len(mangled["truncated"].text) == len(reply) - round(len(reply) * 0.15)
    assert mangled["legacy_text"].text == "Final verdict for each statement in order: Yes. No."
    assert mangle_content('{"claims": ["A.", "B."]}', "legacy_text").text == "1. A.\n2. B."
    assert mangled["garbage"].text == "I am not sure what you mean."
    # A mangling that would change nothing falls back to fences, and says so.
    assert mangle_content("plain words", "single_quotes").kind == "fenced"


def test_same_seed_same_fault_sequence(client_for: ClientFor) -> None:
    def run() -> list[int]:
        faults = Faults(status_5xx=0.5)
        with FakeLLMServer(faults=faults, seed=42) as server:
            client = client_for(server)
            statuses = []
            for _ in range(12):
                try:
                    client.chat.completions.create(model="m", messages=USER)
                    statuses.append(200)
                except openai.APIStatusError as error:
                    statuses.append(error.status_code)
        return statuses

    first = run()
    assert first == run()
    assert 200 in first and len(set(first)) > 1


def test_faults_are_validated() -> None:
    with pytest.raises(ValueError, match="probability"):
        Faults(status_5xx=1.5)
    with pytest.raises(ValueError, match="positive"):
        Faults(rate_limit_rps=0)
    with pytest.raises(ValueError, match="at least 1"):
        Faults(rate_limit_rps=1, rate_limit_burst=0.5)
