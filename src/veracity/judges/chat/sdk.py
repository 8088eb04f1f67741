"""What the SDK-backed chat models share: settings, a client per event loop, retries."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypedDict, TypeVar

from veracity.judges.chat.base import StructuredOutput
from veracity.transport.credentials import resolve_endpoint
from veracity.transport.limits import RequestLimiter
from veracity.transport.retry import ErrorClass, RetryPolicy, call_with_retries
from veracity.transport.urls import public_url

ClientT = TypeVar("ClientT")
R = TypeVar("R")

# Local servers (vLLM, Ollama, llama.cpp) take any key; the SDKs insist on one.
PLACEHOLDER_KEY = "not-needed"


class ChatOptions(TypedDict, total=False):
    """The settings every SDK chat model takes (see :class:`SDKChat`)."""

    base_url: str | None
    api_key: str | None
    concurrency: int
    rpm: float | None
    timeout_s: float
    structured_output: StructuredOutput
    temperature: float | None
    retry: RetryPolicy | None
    seed: int | None


class SDKChat(Generic[ClientT]):
    """A provider's SDK behind :class:`~veracity.judges.chat.base.ChatModel`.

    The key and base URL come from the arguments, else from the provider's environment
    variables; the key is held in memory only and never described or written.
    """

    provider: str = ""
    key_env: str = ""
    base_url_env: str = ""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        concurrency: int = 16,
        rpm: float | None = None,
        timeout_s: float = 60.0,
        structured_output: StructuredOutput = "json_schema",
        temperature: float | None = 0.0,
        retry: RetryPolicy | None = None,
        seed: int | None = None,
    ) -> None:
        endpoint = resolve_endpoint(
            f"{self.provider} judge",
            base_url,
            api_key,
            key_env=self.key_env,
            base_url_env=self.base_url_env,
        )
        base_url, api_key = endpoint.base_url, endpoint.api_key
        self.model = model
        self.base_url = base_url
        self._api_key = api_key
        self.timeout_s = timeout_s
        self.structured_output: StructuredOutput = structured_output
        self.temperature = temperature
        self.retry = retry or RetryPolicy()
        self.limiter = RequestLimiter(concurrency, rpm)
        self.notes: list[str] = []
        self._rng = random.Random(seed)
        self._client: ClientT | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None

    @property
    def name(self) -> str:
        return f"{self.provider}/{self.model}"

    @property
    def concurrency(self) -> int:
        return self.limiter.concurrency

    def describe(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "model": self.model,
            "base_url": public_url(self.base_url),
            "structured_output": self.structured_output,
            "temperature": self.temperature,
            "timeout_s": self.timeout_s,
            "concurrency": self.concurrency,
            "rpm": self.limiter.rpm,
            "max_attempts": self.retry.max_attempts,
        }

    def _make_client(self, api_key: str) -> ClientT:
        raise NotImplementedError

    async def _close_client(self, client: ClientT) -> None:
        raise NotImplementedError

    def _classify(self, exc: BaseException) -> ErrorClass | None:
        raise NotImplementedError

    def client(self) -> ClientT:
        # SDK clients hold connection pools bound to one event loop; each asyncio.run gets
        # a fresh one.
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            self._client = self._make_client(self._api_key or PLACEHOLDER_KEY)
            self._client_loop = loop
        return self._client

    async def call(self, attempt: Callable[[], Awaitable[R]]) -> R:
        value, _ = await call_with_retries(
            attempt, classify=self._classify, policy=self.retry, limiter=self.limiter, rng=self._rng
        )
        return value

    async def aclose(self) -> None:
        client, self._client = self._client, None
        # A client of an event loop that has ended has nothing left to close.
        if client is not None and self._client_loop is asyncio.get_running_loop():
            await self._close_client(client)
