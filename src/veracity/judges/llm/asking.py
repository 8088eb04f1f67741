"""Asking a chat model one question: a bounded reply, read tolerantly, asked again once.

A reply that cannot be used earns one more try, answered with its parse error; one that
was cut off (at its ``max_tokens`` bound, or JSON that only repair could close) also gets
twice the room. The re-ask always shows the judge what went wrong: at temperature 0 the
same question would only get the same reply (a small model that never closes a string
runs on to any bound). A reply is never trusted as complete when it was cut.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from veracity._pickled import PickledWhole
from veracity.chat.base import ChatModel, ChatReply
from veracity.chat.cache import forget
from veracity.judges.base import JudgeOutcome
from veracity.judges.parsing.reader import ParsedValue, ParseFailure
from veracity.prompts import (
    ChatMessage,
    OutputSpec,
    PromptTemplate,
    RenderedPrompt,
    in_conversation,
)
from veracity.transport import CallFailedError
from veracity.types import TokenLogprob, Turn, Usage


class Read(Protocol):
    """What a reader makes of a usable reply: ``method`` says how it was read."""

    @property
    def method(self) -> str: ...


P = TypeVar("P")
R = TypeVar("R", bound=Read)

REASK = (
    "Your previous reply could not be used: {error}\n"
    "Reply again with only the JSON object, in the form of the example, and nothing else: "
    "keep each string short and close it, then close the object."
)
# A cut reply is shown up to here: enough to see where it went wrong, not a second bound's
# worth of prompt.
SHOWN_OF_A_CUT_REPLY = 1000


class Unusable(Exception):
    """The judge's reply could not be used even after a re-ask."""


class CutReply(PickledWhole, Unusable):
    """A reply cut at its bound (or JSON that breaks off), raised instead of asking the
    same question again where the caller asks something smaller (see :func:`ask`)."""

    def __init__(self, message: str, reply: ChatReply, bound: int) -> None:
        super().__init__(message)
        self.reply = reply
        self.bound = bound


@dataclass(frozen=True)
class Asker:
    """A chat model, and the ``max_tokens`` a reply may take by question (template id),
    where the user set one."""

    model: ChatModel
    max_tokens: Mapping[str, int] = field(default_factory=dict)

    def prompt(
        self,
        template: PromptTemplate,
        blocks: Mapping[str, str],
        *,
        items: int = 0,
        history: Sequence[Turn] = (),
    ) -> RenderedPrompt:
        """The prompt, with the conversation before the question when there is one."""
        bound = self.max_tokens.get(template.id)
        return in_conversation(template.render(blocks, items=items, max_tokens=bound), history)


@dataclass(slots=True)
class Exchange:
    """What one question to the judge cost and produced, re-asks included."""

    usage: Usage = field(default_factory=Usage)
    replies: list[ChatReply] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # (question, path) of each reply read: see JudgeOutcome.readings.
    readings: list[tuple[str, str]] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)

    def outcome(self, value: P | None, error: str | None = None) -> JudgeOutcome[P]:
        return JudgeOutcome(
            value=value,
            error=error,
            usage=self.usage,
            latency_s=time.perf_counter() - self.started,
            # Replies are kept whole only when something went wrong: they are the evidence.
            raw_replies=tuple(reply.text for reply in self.replies) if error else (),
            notes=tuple(self.notes),
            readings=tuple(self.readings),
        )

    def absorb(self, part: Exchange) -> None:
        """Count ``part``, an exchange of its own for some of the items, in this one."""
        self.usage += part.usage
        self.replies += part.replies
        self.notes += part.notes
        self.readings += part.readings

    def failed(
        self, model: ChatModel, error: str, unusable: Sequence[ChatReply] | None = None
    ) -> JudgeOutcome[Any]:
        """The outcome of a question the judge could not answer. Its replies (or only the
        ``unusable`` ones) are taken back from ``model``'s response cache, if it has one:
        served again, they would only give the same error, and a retry must reach the
        judge."""
        forget(model, self.replies if unusable is None else unusable)
        return self.outcome(None, error)


def _read(
    reply: ChatReply, output: OutputSpec, parse: Callable[[str], R | ParseFailure]
) -> R | ParseFailure:
    """The parsed reply; a cut-off one is a ``"truncated"`` failure, whatever it says."""
    if reply.truncated:
        bound = output.max_tokens
        return ParseFailure("truncated", f"the reply reached its bound of {bound} tokens")
    return parse(reply.text)


async def ask(
    model: ChatModel,
    prompt: RenderedPrompt,
    parse: Callable[[str], R | ParseFailure],
    exchange: Exchange,
    iteration: int,
    *,
    reask_cut: bool = True,
) -> tuple[R, ChatReply]:
    """The parsed reply to ``prompt`` and the reply itself; raises :class:`Unusable` when
    the one re-ask does not mend it. With ``reask_cut=False`` a cut reply is not asked
    again: it raises :class:`CutReply`, for the caller to ask less at a time."""
    messages: list[ChatMessage] = list(prompt.messages)
    output = prompt.output
    for attempt in (1, 2):
        try:
            reply = await model.complete(messages, output, iteration=iteration)
        except CallFailedError as exc:
            raise Unusable(f"judge call failed: {exc}") from exc
        exchange.usage += reply.usage
        exchange.replies.append(reply)
        parsed = _read(reply, output, parse)
        path = parsed.kind if isinstance(parsed, ParseFailure) else parsed.method
        exchange.readings.append((prompt.template_id, path))
        if not isinstance(parsed, ParseFailure):
            if attempt == 2:
                exchange.notes.append(f"{prompt.template_id}: usable after one re-ask")
            return parsed, reply
        if parsed.kind == "truncated" and not reask_cut:
            raise CutReply(parsed.message, reply, output.max_tokens)
        if attempt == 2:
            what = {"refusal": "refused", "truncated": "was cut off"}.get(
                parsed.kind, "gave an unusable reply"
            )
            raise Unusable(
                f"judge {what} to {prompt.template_id} twice; last parse error: {parsed.message}"
            )
        shown = reply.text
        if parsed.kind == "truncated":
            exchange.notes.append(f"{prompt.template_id}: {parsed.message}; asked again")
            output = dataclasses.replace(output, max_tokens=output.max_tokens * 2)
            if len(shown) > SHOWN_OF_A_CUT_REPLY:
                shown = shown[:SHOWN_OF_A_CUT_REPLY] + " …"
        messages += [
            ChatMessage("assistant", shown),
            ChatMessage("user", REASK.format(error=parsed.message)),
        ]
    raise AssertionError("unreachable")


async def ask_once(
    model: ChatModel,
    prompt: RenderedPrompt,
    read: Callable[[str], ParsedValue[P] | ParseFailure],
    iteration: int,
    refine: Callable[[P, str, Sequence[TokenLogprob]], P] | None = None,
) -> JudgeOutcome[P]:
    """One question, one answer (or the reason there is none) as an outcome, with the
    reader's notes; ``refine`` adds what the reply's token log-probabilities say to it."""
    exchange = Exchange()
    try:
        parsed, reply = await ask(model, prompt, read, exchange, iteration)
    except Unusable as exc:
        return exchange.failed(model, str(exc))
    exchange.notes.extend(parsed.notes)
    value = parsed.value
    if refine is not None and reply.tokens:
        value = refine(value, reply.text, reply.tokens)
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
