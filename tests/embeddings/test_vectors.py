"""Cosine helpers, row normalisation, the LRU cache and the hashing test embedder."""

from __future__ import annotations

import asyncio
import math

import numpy as np
import pytest

from veracity.embeddings import (
    Embedder,
    LRUCache,
    ModelOutputError,
    clipped_cosine,
    cosine,
    normalize_rows,
    question_vector,
)
from veracity.testing.embedders import HashingEmbedder


def test_cosine_of_unit_vectors_is_their_dot_product() -> None:
    a = np.array([1.0, 0.0], dtype=np.float32)
    b = np.array([math.sqrt(0.5), math.sqrt(0.5)], dtype=np.float32)
    assert cosine(a, b) == pytest.approx(math.sqrt(0.5))
    assert cosine(a, -a) == pytest.approx(-1.0)
    assert isinstance(cosine(a, b), float)


def test_cosine_with_a_zero_vector_is_zero_not_nan() -> None:
    zero = np.zeros(3, dtype=np.float32)
    unit = np.array([0.0, 1.0, 0.0], dtype=np.float32)
    assert cosine(zero, unit) == 0.0
    assert cosine(unit, zero) == 0.0
    assert cosine(zero, zero) == 0.0


def test_cosine_rejects_vectors_of_different_sizes() -> None:
    with pytest.raises(ValueError, match="different sizes"):
        cosine(np.ones(3), np.ones(4))


def test_clipped_cosine_stays_in_unit_interval() -> None:
    a = np.array([1.0, 0.0], dtype=np.float32)
    assert clipped_cosine(a, -a) == 0.0
    assert clipped_cosine(a, a * np.float32(1.0000005)) == 1.0
    assert clipped_cosine(a, np.array([0.6, 0.8])) == pytest.approx(0.6)


def test_normalize_rows_scales_rows_and_keeps_zero_rows() -> None:
    rows = normalize_rows([[3.0, 4.0], [0.0, 0.0]])
    assert rows.dtype == np.float32
    np.testing.assert_allclose(rows, [[0.6, 0.8], [0.0, 0.0]], rtol=1e-6)


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_normalize_rows_refuses_nan_and_infinity(bad: float) -> None:
    with pytest.raises(ModelOutputError, match="NaN or infinite values in 1 vector"):
        normalize_rows([[1.0, 0.0], [bad, 1.0]])


def test_lru_cache_drops_least_recently_used() -> None:
    cache: LRUCache[str, int] = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "a" is now the most recent
    cache.put("c", 3)
    assert cache.get("b") is None
    assert (cache.get("a"), cache.get("c")) == (1, 3)
    assert (cache.hits, cache.misses, len(cache)) == (3, 1, 2)


def test_lru_cache_of_size_zero_keeps_nothing() -> None:
    cache: LRUCache[str, int] = LRUCache(0)
    cache.put("a", 1)
    assert cache.get("a") is None
    assert len(cache) == 0


async def test_hashing_embedder_is_deterministic_and_normalised() -> None:
    embedder = HashingEmbedder(dim=32)
    assert isinstance(embedder, Embedder)
    first = await embedder.embed(["The cat sat", "", "   ", "the CAT sat"])
    again = await HashingEmbedder(dim=32).embed(["The cat sat"])
    assert first.shape == (4, 32)
    assert first.dtype == np.float32
    np.testing.assert_array_equal(first[0], again[0])
    np.testing.assert_array_equal(first[0], first[3])  # lowercased tokens
    assert np.linalg.norm(first[0]) == pytest.approx(1.0, abs=1e-6)
    assert not first[1].any()
    assert not first[2].any()
    assert embedder.calls == 1
    assert embedder.texts == 4


async def test_hashing_embedder_shared_words_are_more_similar() -> None:
    vectors = await HashingEmbedder().embed(
        ["paris is the capital of france", "the capital of france is paris", "bananas"]
    )
    assert clipped_cosine(vectors[0], vectors[1]) == pytest.approx(1.0, abs=1e-6)
    assert clipped_cosine(vectors[0], vectors[2]) < 0.5


async def test_hashing_embedder_latency_lets_calls_overlap() -> None:
    embedder = HashingEmbedder(latency_s=0.05)
    await asyncio.gather(*(embedder.embed([f"text {i}"]) for i in range(10)))
    assert embedder.calls == 10
    assert embedder.max_in_flight == 10  # all ten slept at once
    assert embedder.in_flight == 0
    await embedder.aclose()
    assert embedder.closed


def test_a_question_vector_leans_on_the_earlier_turn_by_a_quarter() -> None:
    alone = question_vector([3.0, 0.0], None)
    assert np.allclose(alone, [1.0, 0.0])  # unit length, whatever the embedder gave
    leaning = question_vector([3.0, 0.0], [0.0, 10.0])
    assert np.allclose(leaning, [1.0, 0.25])
    assert np.allclose(question_vector([0.0, 0.0], [0.0, 2.0]), [0.0, 0.25])  # no NaN
