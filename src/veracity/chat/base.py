"""A chat model: messages in, text out, with usage. The transport under an LLM judge."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

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


class Model(Protocol):
    """What the runner asks of any model: its name, how many calls it takes at once, what
    to record of it, and closing it."""

    @property
    def name(self) -> str:
        """``provider/model``, as given to ``--judge``."""
        ...

    @property
    def concurrency(self) -> int:
        """How many calls it runs at once; the runner sizes its work window by it."""
        ...

    def describe(self) -> dict[str, Any]:
        """What to record in a run manifest (never secrets)."""
        ...

    async def aclose(self) -> None: ...


class ChatModel(Model, Protocol):
    async def complete(
        self, messages: Sequence[ChatMessage], output: OutputSpec, *, iteration: int
    ) -> ChatReply:
        """Send ``messages``; raise :class:`CallFailedError` or ``JudgeFatalError`` on failure."""
        ...


M = TypeVar("M", bound=Model)


class OverModel(Generic[M]):
    """What asks ``model`` in its stead (a cache, a judge): named as it, taking as many
    calls at once, and closed with it."""

    model: M

    @property
    def name(self) -> str:
        return self.model.name

    @property
    def concurrency(self) -> int:
        return self.model.concurrency

    async def aclose(self) -> None:
        await self.model.aclose()
