"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` endpoint, through the ``openai`` SDK."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Unpack

import numpy as np

from veracity.chat.openai_chat import OpenAIClient
from veracity.chat.sdk import EndpointOptions
from veracity.embeddings.base import Matrix, ModelOutputError, is_blank, normalize_rows
from veracity.transport import CallFailedError, call_with_retries
from veracity.transport.errors import first_error
from veracity.transport.urls import public_url

# Sent once, only to learn the vector size when a call has nothing but empty texts.
_PROBE_TEXT = "dimension"
DEFAULT_TIMEOUT_S = 60.0


class OpenAIEmbedder(OpenAIClient):
    """An :class:`~veracity.embeddings.base.Embedder` on ``embeddings.create``.

    The key and base URL come from the arguments, else from ``OPENAI_API_KEY`` /
    ``OPENAI_BASE_URL``; the key is held in memory only and never described. The SDK's
    own retries are off: every batch goes through :func:`call_with_retries` with a
    :class:`RequestLimiter` of ``concurrency`` slots. Texts are split into batches of
    ``batch_size`` sent concurrently; repeated texts are sent once and empty ones not at
    all (they get zero rows). ``prompt_tokens`` is the running total the endpoint
    reported, ``requests`` the number of successful calls.
    """

    provider = "openai"
    role = "embedder"
    key_env = "OPENAI_API_KEY"
    base_url_env = "OPENAI_BASE_URL"

    def __init__(
        self, model: str, *, batch_size: int = 256, **endpoint: Unpack[EndpointOptions]
    ) -> None:
        endpoint.setdefault("timeout_s", DEFAULT_TIMEOUT_S)
        super().__init__(model, **endpoint)
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.batch_size = batch_size
        self.prompt_tokens = 0
        self.requests = 0
        self.dim: int | None = None

    def describe(self) -> dict[str, Any]:
        return {
            "provider": "openai",
            "model": self.model,
            "base_url": public_url(self.base_url),
            "batch_size": self.batch_size,
            "concurrency": self.limiter.concurrency,
            "timeout_s": self.timeout_s,
            "max_attempts": self.retry.max_attempts,
        }

    async def embed(self, texts: Sequence[str]) -> Matrix:
        texts = list(texts)
        unique = list(dict.fromkeys(text for text in texts if not is_blank(text)))
        batches = [
            unique[start : start + self.batch_size]
            for start in range(0, len(unique), self.batch_size)
        ]
        try:
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(self._embed_batch(batch)) for batch in batches]
        except BaseExceptionGroup as failed:
            # One failed batch cancels the others; callers get the error itself (a fatal
            # one first), as from any other judge call, not an exception group.
            error = first_error(failed)
            raise error from error.__cause__
        vectors: dict[str, np.ndarray[Any, np.dtype[np.float32]]] = {}
        for batch, task in zip(batches, tasks, strict=True):
            vectors.update(zip(batch, task.result(), strict=True))
        if self.dim is None:
            await self._embed_batch([_PROBE_TEXT])
        assert self.dim is not None
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for index, text in enumerate(texts):
            vector = vectors.get(text)
            if vector is not None:
                out[index] = vector
        return out

    async def _embed_batch(self, batch: list[str]) -> Matrix:
        client = self.client()
        response, _ = await call_with_retries(
            lambda: client.embeddings.create(
                model=self.model, input=batch, encoding_format="float"
            ),
            classify=self._classify,
            policy=self.retry,
            limiter=self.limiter,
            rng=self._rng,
            timeout_s=self.timeout_s,
        )
        self.requests += 1
        if response.usage is not None:
            self.prompt_tokens += response.usage.prompt_tokens
        data = sorted(response.data, key=lambda item: item.index)
        if len(data) != len(batch):
            raise CallFailedError(
                f"the endpoint returned {len(data)} embeddings for {len(batch)} texts"
            )
        try:
            matrix = normalize_rows([item.embedding for item in data])
        except (ValueError, ModelOutputError) as exc:  # ragged rows, NaN
            raise CallFailedError(f"the endpoint returned unusable embeddings: {exc}") from exc
        if self.dim is None:
            self.dim = matrix.shape[1]
        elif matrix.shape[1] != self.dim:
            raise CallFailedError(
                f"the endpoint returned {matrix.shape[1]}-dimensional embeddings after "
                f"{self.dim}-dimensional ones"
            )
        return matrix
