"""A chat model whose replies the test writes: the scripted judge of veracity's own tests,
shipped so users can test their evaluation code without a network."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from veracity.chat.base import ChatReply
from veracity.prompts import ChatMessage, OutputSpec, approx_tokens
from veracity.transport import CallFailedError
from veracity.transport.limits import DEFAULT_CONCURRENCY, RequestLimiter
from veracity.types import Usage

Responder = Callable[[Sequence[ChatMessage], OutputSpec], str]
ScriptItem = str | ChatReply | BaseException | Responder


@dataclass(frozen=True, slots=True)
class ScriptedCall:
    messages: tuple[ChatMessage, ...]
    output: OutputSpec
    iteration: int

    @property
    def prompt(self) -> str:
        """The last user message: what the judge was just asked."""
        return next(m.content for m in reversed(self.messages) if m.role == "user")


class ScriptedModel:
    """What a model whose answers a test writes has: a name, a bound on calls at once and
    a delay per call."""

    def __init__(
        self, *, latency_s: float = 0.0, concurrency: int = DEFAULT_CONCURRENCY, model: str
    ) -> None:
        self.latency_s = latency_s
        self.limiter = RequestLimiter(concurrency)
        self.model = model

    @property
    def name(self) -> str:
        return f"scripted/{self.model}"

    @property
    def concurrency(self) -> int:
        return self.limiter.concurrency

    async def aclose(self) -> None:
        return None


class ScriptedChat(ScriptedModel):
    """Replies from a script, in order; or from one ``responder`` for every call.

    A script item may be a reply string, a whole :class:`ChatReply` (with token
    log-probabilities, say, or cut off at its bound), an exception to raise (a failed
    call), or a function of the messages. ``calls`` records every request for assertions.
    """

    def __init__(
        self,
        script: Iterable[ScriptItem] = (),
        *,
        responder: Responder | None = None,
        latency_s: float = 0.0,
        concurrency: int = DEFAULT_CONCURRENCY,
        model: str = "scripted",
    ) -> None:
        super().__init__(latency_s=latency_s, concurrency=concurrency, model=model)
        self._script = list(script)
        self._responder = responder
        self.calls: list[ScriptedCall] = []

    @property
    def remaining(self) -> int:
        return len(self._script)

    def describe(self) -> dict[str, Any]:
        return {"provider": "scripted", "model": self.model}

    async def complete(
        self, messages: Sequence[ChatMessage], output: OutputSpec, *, iteration: int
    ) -> ChatReply:
        async with self.limiter.slot():
            self.calls.append(ScriptedCall(tuple(messages), output, iteration))
            if self.latency_s:
                await asyncio.sleep(self.latency_s)
            item = self._next_item()
            if isinstance(item, BaseException):
                raise item
            if isinstance(item, ChatReply):
                return item
            text = item if isinstance(item, str) else item(messages, output)
        prompt_tokens = sum(approx_tokens(m.content) for m in messages)
        return ChatReply(
            text=text,
            usage=Usage(calls=1, input_tokens=prompt_tokens, output_tokens=approx_tokens(text)),
            latency_s=self.latency_s,
            model=self.model,
        )

    def _next_item(self) -> ScriptItem:
        if self._script:
            return self._script.pop(0)
        if self._responder is not None:
            return self._responder
        raise CallFailedError(f"the script ran out after {len(self.calls) - 1} replies")
