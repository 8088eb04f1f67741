"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` endpoint, through the ``openai`` SDK."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from veracity.embeddings.base import Matrix, ModelOutputError, is_blank, normalize_rows
from veracity.transport import (
    CallFailedError,
    JudgeFatalError,
    RequestLimiter,
    RetryPolicy,
    call_with_retries,
    classify_sdk_error,
)
from veracity.transport.credentials import resolve_endpoint
from veracity.transport.limits import DEFAULT_CONCURRENCY, checked_timeout
from veracity.transport.retry import ErrorClass
from veracity.transport.urls import public_url

if TYPE_CHECKING:  # the SDK takes half a second to import: only when an embedder is used
    import openai

KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = "OPENAI_BASE_URL"
# Local servers (vLLM, Ollama, llama.cpp) take any key; the SDK insists on one.
PLACEHOLDER_KEY = "not-needed"
# Sent once, only to learn the vector size when a call has nothing but empty texts.
_PROBE_TEXT = "dimension"


class OpenAIEmbedder:
    """An :class:`~veracity.embeddings.base.Embedder` on ``embeddings.create``.

    The key and base URL come from the arguments, else from ``OPENAI_API_KEY`` /
    ``OPENAI_BASE_URL``; the key is held in memory only and never described. The SDK's
    own retries are off: every batch goes through :func:`call_with_retries` with a
    :class:`RequestLimiter` of ``concurrency`` slots. Texts are split into batches of
    ``batch_size`` sent concurrently; repeated texts are sent once and empty ones not at
    all (they get zero rows). ``prompt_tokens`` is the running total the endpoint
    reported, ``requests`` the number of successful calls.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        timeout_s: float = 60.0,
        retry: RetryPolicy | None = None,
        batch_size: int = 256,
        seed: int | None = None,
    ) -> None:
        endpoint = resolve_endpoint(
            "openai embedder", base_url, api_key, key_env=KEY_ENV, base_url_env=BASE_URL_ENV
        )
        base_url, api_key = endpoint.base_url, endpoint.api_key
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.model = model
        self.base_url = base_url
        self._api_key = api_key
        self.timeout_s = checked_timeout(timeout_s)
        self.batch_size = batch_size
        self.retry = retry or RetryPolicy()
        self.limiter = RequestLimiter(concurrency)
        self.prompt_tokens = 0
        self.requests = 0
        self.dim: int | None = None
        self._rng = random.Random(seed)
        self._client: openai.AsyncOpenAI | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None

    def __getstate__(self) -> dict[str, Any]:
        # A copy in another process (a Ray worker) opens its own client, on its own loop.
        return {**self.__dict__, "_client": None, "_client_loop": None}

    @property
    def name(self) -> str:
        return f"openai/{self.model}"

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

    def client(self) -> openai.AsyncOpenAI:
        # SDK clients hold connection pools bound to one event loop; each asyncio.run
        # gets a fresh one.
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            import openai

            self._client = openai.AsyncOpenAI(
                api_key=self._api_key or PLACEHOLDER_KEY,
                base_url=self.base_url,
                # No timeout of the SDK's: it bounds each read; each call is bounded whole.
                timeout=None,
                max_retries=0,
            )
            self._client_loop = loop
        return self._client

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
            error = _first_error(failed)
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

    def _classify(self, exc: BaseException) -> ErrorClass | None:
        import openai

        return classify_sdk_error(
            exc,
            (openai.APIConnectionError, openai.APIResponseValidationError),
            public_url(self.base_url),
            self._api_key,
        )

    async def aclose(self) -> None:
        client, self._client = self._client, None
        # A client of an event loop that has ended has nothing left to close.
        if client is not None and self._client_loop is asyncio.get_running_loop():
            await client.close()


def _first_error(group: BaseExceptionGroup[BaseException]) -> BaseException:
    errors = list(group.exceptions)
    fatal = [error for error in errors if isinstance(error, JudgeFatalError)]
    return (fatal or errors)[0]
