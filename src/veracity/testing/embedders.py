"""A deterministic, offline embedder for tests."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from veracity.testing.payloads import hashed_embedding


class HashingEmbedder:
    """An embedder (see :class:`veracity.embeddings.Embedder`) with no model: a hashed bag
    of lowercase word tokens, L2-normalised, so texts sharing words are similar and an
    empty text is all zeros. With the same ``dim`` its vectors are those the fake
    server's ``/v1/embeddings`` returns.

    ``calls`` counts :meth:`embed` calls and ``texts`` the texts embedded; with
    ``latency_s`` each call sleeps that long (asynchronously) and ``max_in_flight``
    records the most calls seen at once.
    """

    def __init__(self, dim: int = 64, *, latency_s: float = 0.0) -> None:
        if dim < 1:
            raise ValueError(f"dim must be at least 1, got {dim}")
        self.dim = dim
        self.latency_s = latency_s
        self.calls = 0
        self.texts = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.closed = False

    @property
    def name(self) -> str:
        return f"hashing/{self.dim}"

    def describe(self) -> dict[str, Any]:
        return {"provider": "hashing", "model": self.name, "dim": self.dim}

    async def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.calls += 1
        self.texts += len(texts)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.latency_s > 0:
                await asyncio.sleep(self.latency_s)
            out = np.zeros((len(texts), self.dim), dtype=np.float32)
            for index, text in enumerate(texts):
                out[index] = hashed_embedding(text, self.dim)
            return out
        finally:
            self.in_flight -= 1

    async def aclose(self) -> None:
        self.closed = True
