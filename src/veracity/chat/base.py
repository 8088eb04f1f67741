"""A chat model: messages in, text out, with usage. The transport under an LLM judge."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, get_args

from veracity.prompts import ChatMessage, OutputSpec
from veracity.types import TokenLogprob, Usage

# json_object_schema: JSON mode with the schema beside it, the form llama.cpp's servers
# (and some hosted ones) turn into a grammar, so a small model cannot leave a field out.
StructuredOutput = Literal["json_schema", "json_object_schema", "json_object", "text"]
STRUCTURED_OUTPUT_MODES: tuple[StructuredOutput, ...] = get_args(StructuredOutput)
# Each mode falls back to the next when an endpoint rejects it.
STRUCTURED_OUTPUT_FALLBACK: dict[StructuredOutput, StructuredOutput | None] = {
    "json_schema": "json_object_schema",
    "json_object_schema": "json_object",
    "json_object": "text",
    "text": None,
}


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
