"""The fake server's batch endpoints, through the official SDKs."""

from __future__ import annotations

import json
import time

import anthropic
import openai
import pytest
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming

from veracity.testing import FakeLLMServer


def _openai_line(i: int) -> str:
    body = {"model": "m", "messages": [{"role": "user", "content": f"hi {i}"}], "max_tokens": 50}
    return json.dumps(
        {"custom_id": f"r{i}", "method": "POST", "url": "/v1/chat/completions", "body": body}
    )


def test_openai_batch_is_answered_after_its_delay_with_failures_in_the_error_file() -> None:
    with FakeLLMServer() as server:
        server.batches.delay_s = 0.3
        server.batches.fail_every = 3
        client = openai.OpenAI(base_url=server.base_url, api_key="test")
        content = "\n".join(_openai_line(i) for i in range(4)).encode()
        uploaded = client.files.create(file=("b.jsonl", content), purpose="batch")
        batch = client.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
        assert batch.status == "validating"
        time.sleep(0.35)
        batch = client.batches.retrieve(batch.id)
        assert batch.status == "completed"
        assert batch.request_counts is not None
        assert (batch.request_counts.completed, batch.request_counts.failed) == (3, 1)
        assert batch.output_file_id and batch.error_file_id
        good = [
            json.loads(x) for x in client.files.content(batch.output_file_id).text.split("\n") if x
        ]
        bad = [
            json.loads(x) for x in client.files.content(batch.error_file_id).text.split("\n") if x
        ]
        assert sorted(line["custom_id"] for line in good) == ["r0", "r1", "r3"]
        assert good[0]["response"]["body"]["choices"][0]["message"]["content"]
        assert [line["custom_id"] for line in bad] == ["r2"]
        assert bad[0]["response"]["status_code"] == 500
        assert server.batches_created == 1
        assert server.stats.completions == 3


def test_anthropic_batch_expires_half_done() -> None:
    with FakeLLMServer() as server:
        server.batches.expire = 1
        client = anthropic.Anthropic(base_url=server.anthropic_base_url, api_key="test")
        params: MessageCreateParamsNonStreaming = {
            "model": "m",
            "max_tokens": 50,
            "messages": [{"role": "user", "content": "hi"}],
        }
        created = client.messages.batches.create(
            requests=[{"custom_id": f"r{i}", "params": params} for i in range(4)]
        )
        batch = client.messages.batches.retrieve(created.id)
        assert batch.processing_status == "ended"
        assert (batch.request_counts.succeeded, batch.request_counts.expired) == (2, 2)
        kinds = {r.custom_id: r.result.type for r in client.messages.batches.results(batch.id)}
        assert kinds == {"r0": "succeeded", "r1": "succeeded", "r2": "expired", "r3": "expired"}


def test_a_server_without_batches_answers_404() -> None:
    with FakeLLMServer() as server:
        server.batches.available = False
        client = openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0)
        with pytest.raises(openai.NotFoundError):
            client.files.create(file=("b.jsonl", b"{}"), purpose="batch")
