"""A decision model: typed questions about one state in, a probability for every option out,
in one pass and with no text to parse. The transport under a decision judge, as a chat
model is under an LLM judge."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal, Protocol

from veracity._pickled import PickledWhole
from veracity.chat.base import Model
from veracity.transport.errors import CallFailedError
from veracity.types import Usage

QuestionKind = Literal["predicate", "choice", "score"]
# A predicate's two options, as its probabilities are kept (System One calls it ``noul``).
PREDICATE_OPTIONS = ("false", "true")


@dataclass(frozen=True, slots=True)
class Option:
    """A choice's value, or a score's level (its label), with what it means."""

    value: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class Question:
    """One typed question. ``name`` is unique within a request (letters, digits, ``_``);
    ``options`` are a choice's values or a score's levels, lowest first (a predicate has
    none: it is true or false)."""

    name: str
    kind: QuestionKind
    instructions: str
    options: tuple[Option, ...] = ()

    def option_values(self) -> tuple[str, ...]:
        if self.kind == "predicate":
            return PREDICATE_OPTIONS
        return tuple(option.value for option in self.options)


@dataclass(frozen=True, slots=True)
class DecisionRequest:
    """Questions that share one state (the text they are about)."""

    state: str
    questions: tuple[Question, ...]


@dataclass(frozen=True, slots=True)
class Answer:
    """A question's answer: a probability for each of its options, in the question's order
    (a predicate: ``false``, ``true``), and the model's confidence where it gives one. A
    refusal (the model declined, or the server left the question out) has no probabilities
    and says why in ``refusal``: it is never a verdict."""

    name: str
    kind: QuestionKind
    probabilities: tuple[tuple[str, float], ...] = ()
    confidence: float | None = None
    refusal: str | None = None

    @property
    def refused(self) -> bool:
        return self.refusal is not None

    def probability(self, value: str) -> float:
        """P(``value``); 0 for an option the answer does not name."""
        return dict(self.probabilities).get(value, 0.0)

    def most_likely(self) -> str:
        """The option with the highest probability (the first of equals)."""
        return max(self.probabilities, key=lambda pair: pair[1])[0]

    def expected_level(self) -> float:
        """A score's probability-weighted level index (0 for the lowest level)."""
        return math.fsum(i * p for i, (_, p) in enumerate(self.probabilities))


@dataclass(frozen=True, slots=True)
class DecisionReply:
    """The answers to a request by question name, what they cost (decision models bill the
    input only), and how long they took. ``notes`` say what the client did on the way (a
    request split at a server's limit, say)."""

    answers: dict[str, Answer]
    usage: Usage
    latency_s: float
    model: str
    notes: tuple[str, ...] = field(default=())


class PartlyDecidedError(PickledWhole, CallFailedError):
    """A request sent in parts (at a server's limits) where some parts failed: ``reply``
    holds the answers of those that came back and what they cost, so a caller whose
    questions were all answered keeps them, and the tokens spent are charged."""

    def __init__(self, message: str, reply: DecisionReply) -> None:
        super().__init__(message)
        self.reply = reply


@dataclass(frozen=True, slots=True)
class ServerLimits:
    """What one request may hold: questions, options per question and, where known, the
    state's tokens. A client splits a request at these limits."""

    max_questions: int
    max_options: int
    max_state_tokens: int | None = None


class DecisionModel(Model, Protocol):
    """Answers typed questions; raises :class:`~veracity.transport.CallFailedError` when a
    request failed after its retries (:class:`PartlyDecidedError` when it was sent in parts
    and only some failed), ``JudgeFatalError`` when the model cannot work at all
    (a chat model behind a decision endpoint, a bad key)."""

    @property
    def limits(self) -> ServerLimits: ...

    async def decide(self, request: DecisionRequest, *, iteration: int) -> DecisionReply:
        """Every question of ``request`` answered (or refused), in as few requests as the
        server's limits allow."""
        ...
