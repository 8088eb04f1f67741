"""A chat model: messages in, text out, with usage. The transport under an LLM judge."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from veracity.prompts import ChatMessage, OutputSpec
from veracity.types import TokenLogprob, Usage


@dataclass(frozen=True, slots=True)
class ChatReply:
    """A reply: its text, what it cost, and where the endpoint gives them, the tokens' log-
    probabilities. ``truncated``: the reply stopped at its ``max_tokens`` bound.
    ``cache_key``: where a response cache keeps it, so a reply that proves unusable can be
    taken back."""

    text: str
    usage: Usage
    latency_s: float
    model: str
    truncated: bool = False
    tokens: tuple[TokenLogprob, ...] = ()
    cache_key: str | None = None


class ChatModel(Protocol):
    @property
    def name(self) -> str:
        """``provider/model``, as given to ``--judge``."""
        ...

    @property
    def concurrency(self) -> int: ...

    def describe(self) -> dict[str, Any]: ...

    async def complete(
        self, messages: Sequence[ChatMessage], output: OutputSpec, *, iteration: int
    ) -> ChatReply:
        """Send ``messages``; raise :class:`CallFailedError` or ``JudgeFatalError`` on failure."""
        ...

    async def aclose(self) -> None: ...
