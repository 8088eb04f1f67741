"""The local sentence-transformers embedder on the real all-MiniLM-L6-v2."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tests.embeddings.conftest import Loaded
from veracity.embeddings import Embedder, LocalEmbedder, clipped_cosine, default_minilm_dir


def test_loading_verifies_offline_and_never_touches_the_network(
    loaded_embedder: Loaded,
) -> None:
    assert loaded_embedder.attempts == []
    embedder: LocalEmbedder = loaded_embedder.model
    assert isinstance(embedder, Embedder)
    assert embedder.name == "local/all-MiniLM-L6-v2"
    description = embedder.describe()
    assert description["model"] == "all-MiniLM-L6-v2"
    assert (
        description["sha256"] == "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
    )
    assert not any("/" in str(value) for value in description.values())  # no local paths


async def test_shapes_normalisation_and_empty_texts(embedder: LocalEmbedder) -> None:
    vectors = await embedder.embed(["A short sentence.", "", "  \n\t", "Another one here."])
    assert vectors.shape == (4, 384)
    assert vectors.dtype == np.float32
    assert np.isfinite(vectors).all()
    norms = np.linalg.norm(vectors, axis=1)
    np.testing.assert_allclose(norms[[0, 3]], 1.0, atol=1e-5)
    assert not vectors[1].any()
    assert not vectors[2].any()
    assert (await embedder.embed([])).shape == (0, 384)
    only_empty = await embedder.embed(["", " "])
    assert only_empty.shape == (2, 384)
    assert not only_empty.any()


async def test_paraphrases_are_closer_than_unrelated_texts(embedder: LocalEmbedder) -> None:
    a, b, c = await embedder.embed(
        [
            "A man is playing a guitar on stage.",
            "Someone performs a song on the guitar at a concert.",
            "Interest rates rose sharply after the central bank meeting.",
        ]
    )
    paraphrase, unrelated = clipped_cosine(a, b), clipped_cosine(a, c)
    assert paraphrase > 0.5
    assert unrelated < 0.2
    assert paraphrase > unrelated + 0.3


def _count_encodes(monkeypatch: pytest.MonkeyPatch, embedder: LocalEmbedder) -> list[int]:
    """Wrap the loaded model's ``encode``; the list gets each call's number of texts."""
    model: Any = embedder._model
    real: Callable[..., Any] = model.encode
    sizes: list[int] = []

    def encode(texts: list[str], *args: Any, **kwargs: Any) -> Any:
        sizes.append(len(texts))
        return real(texts, *args, **kwargs)

    monkeypatch.setattr(model, "encode", encode)
    return sizes


async def test_concurrent_calls_are_micro_batched_and_routed_back(
    embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = [f"Question number {i} about the history of Rome." for i in range(20)]
    sizes = _count_encodes(monkeypatch, embedder)
    before = embedder.encode_calls
    results = await asyncio.gather(*(embedder.embed([text]) for text in texts))
    assert len(sizes) <= 2  # 20 callers, one or two encode calls
    assert sum(sizes) == 20
    assert embedder.encode_calls - before == len(sizes)
    direct = embedder._model.encode(texts)  # type: ignore[union-attr]
    for text_index, result in enumerate(results):
        assert result.shape == (1, 384)
        np.testing.assert_allclose(result[0], direct[text_index], atol=1e-5)


async def test_repeated_texts_come_from_the_cache(
    embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "What is the boiling point of water at sea level?"
    first = await embedder.embed([text, text])  # a duplicate within a call: encoded once
    sizes = _count_encodes(monkeypatch, embedder)
    hits = embedder.cache_hits
    again = await embedder.embed([text])
    assert sizes == []  # no encode call at all
    assert embedder.cache_hits == hits + 1
    np.testing.assert_array_equal(first[0], first[1])
    np.testing.assert_array_equal(again[0], first[0])


async def test_a_cold_embedder_keeps_nothing_but_encodes_a_duplicate_once(
    embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What benchmarks/offline_speed.py measures: no vector kept between calls.
    cold = LocalEmbedder(cache_size=0)
    await cold.load()
    text = "Cold runs embed every text they are asked for."
    sizes = _count_encodes(monkeypatch, cold)
    first = await cold.embed([text, text])  # one batch: encoded once
    again = await cold.embed([text])  # a later call: encoded again
    assert sizes == [1, 1]
    assert cold.cache_hits == 0
    np.testing.assert_array_equal(first[0], again[0])
    await cold.aclose()


async def test_encoding_does_not_block_the_event_loop(embedder: LocalEmbedder) -> None:
    texts = [f"Sentence {i}: the quick brown fox jumps over the lazy dog." * 2 for i in range(200)]
    ticks: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        while not done.is_set():
            ticks.append(time.perf_counter())
            await asyncio.sleep(0.005)

    tick_task = asyncio.create_task(ticker())
    started = time.perf_counter()
    vectors = await embedder.embed(texts)
    elapsed = time.perf_counter() - started
    done.set()
    await tick_task
    assert vectors.shape == (200, 384)
    # The loop kept running while the worker thread encoded.
    assert len(ticks) >= 5, (len(ticks), elapsed)


def test_one_embedder_serves_successive_event_loops(embedder: LocalEmbedder) -> None:
    first = asyncio.run(embedder.embed(["Loop one sentence."]))
    second = asyncio.run(embedder.embed(["Loop two sentence."]))
    assert first.shape == second.shape == (1, 384)
    assert clipped_cosine(first[0], second[0]) > 0.5


async def test_a_user_directory_is_named_after_it_and_loaded_unpinned(
    embedder: LocalEmbedder,
) -> None:
    # The same files as a directory of the user's: loaded by sentence-transformers, which
    # the default model's own torch code must match.
    by_library = LocalEmbedder(default_minilm_dir(), batch_size=8, cache_size=0)
    assert by_library.name == "local/model"
    assert by_library.describe()["sha256"] is None
    vectors = await by_library.embed(["Hello there.", "Hello there."])
    assert vectors.shape == (2, 384)
    assert by_library.cache_hits == 0
    texts = [
        "Hello there.",
        "  Leading and trailing spaces are stripped first.  ",
        "Ünïcödé, café, 東京 and an emoji 😀 in one line.",
        "x",
        "The longest sentence pads its batch. " * 60,  # over 256 tokens: cut there
        *(f"Sentence {i} of a batch of mixed lengths{' and more' * i}." for i in range(30)),
    ]
    from sentence_transformers import SentenceTransformer  # here: seconds to import

    assert isinstance(by_library._model, SentenceTransformer)
    np.testing.assert_allclose(
        await embedder.embed(texts), await by_library.embed(texts), rtol=0, atol=1e-6
    )
    # Both say which texts they cut, alike.
    assert await by_library.cut(texts) == await embedder.cut(texts)
    assert [i for i, c in enumerate(await embedder.cut(texts)) if c] == [4]
    await by_library.aclose()


def test_loading_draws_no_progress_bar_and_leaves_the_setting_alone(
    capfd: pytest.CaptureFixture[str],
) -> None:
    from transformers.utils import logging as hf_logging

    embedder = LocalEmbedder()
    asyncio.run(embedder.load())
    asyncio.run(embedder.aclose())
    assert "Loading weights" not in capfd.readouterr().err
    assert hf_logging.is_progress_bar_enabled()


async def test_a_text_longer_than_the_model_reads_is_named_in_the_result(
    embedder: LocalEmbedder,
) -> None:
    from veracity.chat import ScriptedChat
    from veracity.judges import LLMJudge
    from veracity.metrics import Models, SampleWork, SemanticSimilarity
    from veracity.types import Sample

    long = "Paris is the capital and largest city of France. " * 40  # ~400 tokens
    assert await embedder.cut(["Paris.", long, " "]) == (False, True, False)
    metric = SemanticSimilarity()

    async def similarity(answer: str) -> tuple[str, dict[str, Any]]:
        sample = Sample(id="a", question="q", answer=answer, reference="Paris is in France.")
        models = Models(LLMJudge(ScriptedChat([])), embedder=embedder)
        result = await metric.score(SampleWork(sample, models, 0, {metric.name: metric}))
        return result.reason, result.details

    reason, details = await similarity(long)
    assert details["cut"] == ["answer"]
    assert "the answer is longer than the model reads" in reason
    reason, details = await similarity("Paris is the capital of France.")
    assert "cut" not in details and "longer" not in reason
