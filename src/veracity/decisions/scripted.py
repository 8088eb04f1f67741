"""A decision model whose answers the test writes: the decision judge's counterpart of
:class:`~veracity.chat.scripted.ScriptedChat`, shipped so users can test their evaluation
code without a server."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from veracity.chat.scripted import ScriptedModel
from veracity.decisions.base import (
    Answer,
    DecisionReply,
    DecisionRequest,
    PartlyDecidedError,
    Question,
    ServerLimits,
)
from veracity.decisions.limits import SYSTEMONE_LIMITS
from veracity.prompts import approx_tokens
from veracity.transport import CallFailedError
from veracity.transport.limits import DEFAULT_CONCURRENCY
from veracity.types import Usage

__all__ = ["DecisionResponder", "ScriptedDecisions", "ScriptedRequest"]

# What a question is answered with: a probability per option value (those left out are 0),
# a whole Answer, None for a refusal, or an exception to raise (the request fails).
Scripted = Mapping[str, float] | Answer | BaseException | None
DecisionResponder = Callable[[str, Question], Scripted]
# The limits of vLLM's and Ollama's System One servers: a realistic default.
SCRIPTED_LIMITS = SYSTEMONE_LIMITS


@dataclass(frozen=True, slots=True)
class ScriptedRequest:
    """One request as a server would have received it (after splitting at the limits)."""

    state: str
    questions: tuple[Question, ...]
    iteration: int


def _template_id(question: Question) -> str:
    """The question's name without its number: the judge names questions ``ID_N``."""
    head, _, tail = question.name.rpartition("_")
    return head if tail.isdigit() and head else question.name


class ScriptedDecisions(ScriptedModel):
    """Answers every question with ``responder(state, question)``, or from ``table``: a
    question's answer by its name without the trailing ``_N`` (the template id the judge
    names its questions after, e.g. ``claim_support``), then by its kind.

    A request with more questions than ``limits.max_questions`` is split as a real client
    splits it; ``requests`` records each part as sent, ``decide_calls`` each call of
    :meth:`decide`, so tests can count both. A question with more options than
    ``limits.max_options`` fails the request, as a server would reject it.
    """

    def __init__(
        self,
        responder: DecisionResponder | None = None,
        *,
        table: Mapping[str, Scripted] | None = None,
        limits: ServerLimits = SCRIPTED_LIMITS,
        latency_s: float = 0.0,
        concurrency: int = DEFAULT_CONCURRENCY,
        model: str = "scripted",
    ) -> None:
        if responder is None and table is None:
            raise ValueError("give a responder or a table")
        super().__init__(latency_s=latency_s, concurrency=concurrency, model=model)
        self._responder = responder
        self._table = dict(table or {})
        self._limits = limits
        self.requests: list[ScriptedRequest] = []
        self.decide_calls: list[DecisionRequest] = []

    @property
    def limits(self) -> ServerLimits:
        return self._limits

    def describe(self) -> dict[str, Any]:
        return {
            "provider": "scripted",
            "model": self.model,
            "limits": {
                "max_questions": self._limits.max_questions,
                "max_options": self._limits.max_options,
            },
        }

    async def decide(self, request: DecisionRequest, *, iteration: int) -> DecisionReply:
        self.decide_calls.append(request)
        size = self._limits.max_questions
        parts = [request.questions[i : i + size] for i in range(0, len(request.questions), size)]
        answers: dict[str, Answer] = {}
        usage = Usage()
        failures: list[CallFailedError] = []
        for part in parts:
            async with self.limiter.slot():
                self.requests.append(ScriptedRequest(request.state, part, iteration))
                if self.latency_s:
                    await asyncio.sleep(self.latency_s)
                try:  # a part fails on its own, as one of a real client's requests does
                    answered = {q.name: self._answer(request.state, q) for q in part}
                except CallFailedError as exc:
                    failures.append(exc)
                    continue
            answers.update(answered)
            sent = request.state + "".join(q.instructions for q in part)
            usage += Usage(calls=1, input_tokens=approx_tokens(sent))
        reply = DecisionReply(
            answers=answers,
            usage=usage,
            latency_s=self.latency_s * len(parts),
            model=self.model,
        )
        if failures and answers:
            raise PartlyDecidedError(str(failures[0]), reply)
        if failures:
            raise failures[0]
        return reply

    def _scripted(self, state: str, question: Question) -> Scripted:
        if self._responder is not None:
            return self._responder(state, question)
        for key in (_template_id(question), question.kind):
            if key in self._table:
                return self._table[key]
        raise CallFailedError(f"no scripted answer for question {question.name!r}")

    def _answer(self, state: str, question: Question) -> Answer:
        if len(question.options) > self._limits.max_options:
            raise CallFailedError(
                f"question {question.name!r} has {len(question.options)} options, over the "
                f"limit of {self._limits.max_options}"
            )
        scripted = self._scripted(state, question)
        if isinstance(scripted, BaseException):
            raise scripted
        if scripted is None:
            return Answer(question.name, question.kind, refusal="the model declined (scripted)")
        if isinstance(scripted, Answer):
            return scripted
        values = question.option_values()
        unknown = set(scripted) - set(values)
        if unknown:
            raise ValueError(f"{question.name}: no option(s) {sorted(unknown)} in {values}")
        probabilities = tuple((value, float(scripted.get(value, 0.0))) for value in values)
        total = math.fsum(p for _, p in probabilities)
        if not math.isclose(total, 1.0, abs_tol=1e-6):
            raise ValueError(f"{question.name}: probabilities sum to {total}, not 1")
        return Answer(question.name, question.kind, probabilities=probabilities)
