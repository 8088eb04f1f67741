"""The OpenAI-compatible embedder against the fake server on loopback."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from veracity.embeddings import Embedder, OpenAIEmbedder
from veracity.embeddings.base import Matrix
from veracity.testing import FakeLLMServer, Faults
from veracity.testing.embedders import HashingEmbedder
from veracity.transport import CallFailedError, JudgeFatalError, RetryPolicy

FAST_RETRY = RetryPolicy(max_attempts=30, base_delay_s=0.005, max_delay_s=0.02)


def _embedder(server: FakeLLMServer, **options: object) -> OpenAIEmbedder:
    settings: dict[str, object] = {"retry": FAST_RETRY, "seed": 1, **options}
    return OpenAIEmbedder(
        "text-embedding-test",
        base_url=server.base_url,
        api_key="test-key",
        **settings,  # type: ignore[arg-type]
    )


def _sent(server: FakeLLMServer) -> list[str]:
    return [text for body in server.requests for text in body["input"]]


async def test_vectors_shapes_and_normalisation() -> None:
    texts = ["Paris is the capital of France.", "Bananas are yellow.", "paris capital france"]
    with FakeLLMServer() as server:
        embedder = _embedder(server)
        assert isinstance(embedder, Embedder)
        vectors = await embedder.embed(texts)
        await embedder.aclose()
        body = server.requests[0]
    assert vectors.shape == (3, 64)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    expected = await HashingEmbedder(64).embed(texts)  # what the fake server computes
    np.testing.assert_allclose(vectors, expected, atol=1e-6)
    assert body["encoding_format"] == "float"
    assert body["model"] == "text-embedding-test"
    assert embedder.prompt_tokens > 0
    assert embedder.requests == 1


async def test_empty_and_repeated_texts_are_not_sent() -> None:
    texts = ["first text", "", "second text", "   ", "first text"]
    with FakeLLMServer() as server:
        embedder = _embedder(server)
        vectors = await embedder.embed(texts)
        await embedder.aclose()
        sent = _sent(server)
    assert sorted(sent) == ["first text", "second text"]
    assert not vectors[1].any()
    assert not vectors[3].any()
    np.testing.assert_array_equal(vectors[0], vectors[4])
    assert np.isfinite(vectors).all()


async def test_only_empty_texts_give_zero_rows_of_the_right_size() -> None:
    with FakeLLMServer() as server:
        embedder = _embedder(server)
        vectors = await embedder.embed(["", "  "])
        empty = await embedder.embed([])
        await embedder.aclose()
        sent = _sent(server)
    assert vectors.shape == (2, 64)
    assert not vectors.any()
    assert empty.shape == (0, 64)
    assert len(sent) == 1  # one probe, once, to learn the size
    assert sent[0].strip()


async def test_batches_are_sent_concurrently() -> None:
    texts = [f"text number {i}" for i in range(16)]
    with FakeLLMServer(latency_s=0.2) as server:
        embedder = _embedder(server, batch_size=2, concurrency=16)
        vectors = await embedder.embed(texts)
        await embedder.aclose()
        stats = server.stats
        batch_sizes = [len(body["input"]) for body in server.requests]
    assert vectors.shape == (16, 64)
    assert batch_sizes == [2] * 8
    assert stats.max_concurrent >= 4  # batches in flight together at the server
    expected = await HashingEmbedder(64).embed(texts)
    np.testing.assert_allclose(vectors, expected, atol=1e-6)  # rows in the right order


async def test_server_errors_are_retried() -> None:
    texts = [f"sentence {i}" for i in range(40)]
    with FakeLLMServer(faults=Faults(status_5xx=0.5), seed=3) as server:
        embedder = _embedder(server, batch_size=4)
        vectors = await embedder.embed(texts)
        await embedder.aclose()
        stats = server.stats
    assert stats.faults.get("status_5xx", 0) > 0
    assert stats.embeddings == 10
    assert embedder.requests == 10
    np.testing.assert_allclose(vectors, await HashingEmbedder(64).embed(texts), atol=1e-6)


async def test_rate_limits_are_waited_out() -> None:
    texts = [f"sentence {i}" for i in range(12)]
    with FakeLLMServer(faults=Faults(rate_limit_rps=40, rate_limit_burst=2)) as server:
        embedder = _embedder(server, batch_size=1)
        vectors = await embedder.embed(texts)
        await embedder.aclose()
        stats = server.stats
    assert stats.faults.get("rate_limit", 0) > 0
    assert embedder.limiter.throttle_events > 0
    assert np.isfinite(vectors).all()
    assert np.count_nonzero(np.linalg.norm(vectors, axis=1)) == 12


async def test_persistent_failures_raise_call_failed_not_an_exception_group() -> None:
    with FakeLLMServer(faults=Faults(status_5xx=1.0)) as server:
        embedder = _embedder(
            server, batch_size=1, retry=RetryPolicy(max_attempts=2, base_delay_s=0.001)
        )
        with pytest.raises(CallFailedError, match="gave up after 2 failed attempts"):
            await embedder.embed(["a", "b", "c"])
        await embedder.aclose()


async def test_a_bad_key_is_fatal() -> None:
    with FakeLLMServer(api_key="the-right-key") as server:
        embedder = _embedder(server)  # sends "test-key"
        with pytest.raises(JudgeFatalError, match="HTTP 401"):
            await embedder.embed(["some text"])
        await embedder.aclose()


def test_one_embedder_serves_successive_event_loops() -> None:
    with FakeLLMServer() as server:
        embedder = _embedder(server)

        async def embed_and_close() -> Matrix:
            # As a run does: its models are closed on the loop that used them (a client
            # left open on an ended loop leaks its socket).
            try:
                return await embedder.embed(["hello world"])
            finally:
                await embedder.aclose()

        first = asyncio.run(embed_and_close())
        second = asyncio.run(embed_and_close())
    np.testing.assert_array_equal(first, second)
    assert embedder.requests == 2


def test_key_or_base_url_is_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        OpenAIEmbedder("text-embedding-3-small")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert OpenAIEmbedder("m").base_url == "http://127.0.0.1:9/v1"


def test_describe_keeps_no_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    embedder = OpenAIEmbedder(
        "text-embedding-3-small",
        api_key="sk-secret-value",
        base_url="http://user:pass@127.0.0.1:8000/v1?token=abc",
    )
    description = embedder.describe()
    assert embedder.name == "openai/text-embedding-3-small"
    assert description["base_url"] == "http://127.0.0.1:8000/v1"
    assert "secret" not in repr(description)
    assert "pass" not in repr(description)
