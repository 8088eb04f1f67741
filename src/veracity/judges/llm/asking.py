"""Asking a chat model one question: parse tolerantly, re-ask once with the parse error."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from veracity.judges.base import JudgeOutcome
from veracity.judges.chat.base import ChatModel
from veracity.judges.parsing import ParseFailure
from veracity.prompts import ChatMessage, RenderedPrompt
from veracity.transport import CallFailedError
from veracity.types import Usage

P = TypeVar("P")

REASK = (
    "Your previous reply could not be used: {error}\n"
    "Reply again with only the JSON object the system message describes, and nothing else."
)


class Unusable(Exception):
    """The judge's reply could not be used even after a re-ask."""


@dataclass(slots=True)
class Exchange:
    """What one question to the judge cost and produced, re-asks included."""

    usage: Usage = field(default_factory=Usage)
    raw_replies: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)

    def outcome(self, value: P | None, error: str | None = None) -> JudgeOutcome[P]:
        return JudgeOutcome(
            value=value,
            error=error,
            usage=self.usage,
            latency_s=time.perf_counter() - self.started,
            # Replies are kept whole only when something went wrong: they are the evidence.
            raw_replies=tuple(self.raw_replies) if error else (),
            notes=tuple(self.notes),
        )


async def ask(
    model: ChatModel,
    prompt: RenderedPrompt,
    parse: Callable[[str], P | ParseFailure],
    exchange: Exchange,
    iteration: int,
) -> P:
    """The parsed reply to ``prompt``; raises :class:`Unusable` after one failed re-ask."""
    messages: list[ChatMessage] = list(prompt.messages)
    for attempt in (1, 2):
        try:
            reply = await model.complete(messages, prompt.output, iteration=iteration)
        except CallFailedError as exc:
            raise Unusable(f"judge call failed: {exc}") from exc
        exchange.usage += reply.usage
        exchange.raw_replies.append(reply.text)
        parsed = parse(reply.text)
        if not isinstance(parsed, ParseFailure):
            if attempt == 2:
                exchange.notes.append(f"{prompt.template_id}: usable after one re-ask")
            return parsed
        if attempt == 2:
            what = "refused" if parsed.kind == "refusal" else "gave an unusable reply"
            raise Unusable(
                f"judge {what} to {prompt.template_id} twice; last parse error: {parsed.message}"
            )
        messages += [
            ChatMessage("assistant", reply.text),
            ChatMessage("user", REASK.format(error=parsed.message)),
        ]
    raise AssertionError("unreachable")


async def ask_once(
    model: ChatModel,
    prompt: RenderedPrompt,
    parse: Callable[[str], P | ParseFailure],
    iteration: int,
) -> JudgeOutcome[P]:
    """One question, one answer (or the reason there is none) as an outcome."""
    exchange = Exchange()
    try:
        value = await ask(model, prompt, parse, exchange, iteration)
    except Unusable as exc:
        return exchange.outcome(None, str(exc))
    return exchange.outcome(value)


V = TypeVar("V")
Round = Callable[[list[int]], Awaitable[tuple[Mapping[int, V], Sequence[int]]]]


async def ask_for_all(n_items: int, ask_round: Round[V], exchange: Exchange, noun: str) -> list[V]:
    """One answer for each of ``n_items`` items judged in one batched call.

    ``ask_round(pending)`` asks about the items ``pending`` (indices into all items) and
    returns what it found and what is missing, both by position in ``pending``. Items
    missing after the first round are asked for again, only those; still missing after
    that, the question is :class:`Unusable`.
    """
    found: dict[int, V] = {}
    pending = list(range(n_items))
    for round_ in (1, 2):
        got, missing = await ask_round(pending)
        for local, value in got.items():
            found[pending[local]] = value
        pending = [pending[local] for local in missing]
        if not pending:
            return [found[i] for i in range(n_items)]
        if round_ == 1:
            exchange.notes.append(f"asked again for {len(pending)} {noun}(s) without a verdict")
    numbers = ", ".join(str(i + 1) for i in pending)
    raise Unusable(f"judge gave no verdict for {noun}(s) {numbers} even when asked again")
