"""One request for all the questions of a sample that share a state.

Metrics ask their questions at different moments: context precision's chunk questions at
once, faithfulness' claim questions once the claims are drawn. Both are about the same
state (the numbered contexts), so a decision model can answer them in one request. The
:class:`Coalescer` holds the questions registered under one (state, iteration) for a quiet
window, and for as long as a claim extraction of the same sample's question is in flight
(the judge draws the claims itself, so it knows), then sends them as one
:class:`~veracity.decisions.DecisionRequest`; each caller gets its own answers. A question
asked twice (the same kind, instructions and options) is asked once.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from veracity.decisions.base import (
    Answer,
    DecisionModel,
    DecisionRequest,
    Option,
    Question,
    QuestionKind,
)
from veracity.transport.limits import DEFAULT_GROUPING_S
from veracity.types import Usage

__all__ = ["Asked", "Coalescer", "Decided"]

DEFAULT_WINDOW_S = DEFAULT_GROUPING_S
QUIET_TURNS = 16
# How soon after a sample's questions its claim extraction may start and still be waited
# for: a loop turn, or more on a busy loop.
SAME_SAMPLE_S = 0.25
_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9_]+")


@dataclass(frozen=True, slots=True)
class Asked:
    """A question before it has a name in a request: ``template`` (its template's id)
    becomes its name's stem."""

    template: str
    kind: QuestionKind
    instructions: str
    options: tuple[Option, ...] = ()

    @property
    def key(self) -> tuple[str, str, tuple[Option, ...]]:
        return (self.kind, self.instructions, self.options)


@dataclass(frozen=True, slots=True)
class Decided:
    """A caller's answers, in the order of its questions, with the request's cost (charged
    to the first caller of a shared request only, so totals add up) and notes."""

    answers: tuple[Answer, ...]
    usage: Usage
    latency_s: float
    notes: tuple[str, ...] = ()


@dataclass
class _Batch:
    state: str
    iteration: int
    questions: dict[tuple[str, str, tuple[Option, ...]], Question] = field(default_factory=dict)
    callers: list[tuple[tuple[str, ...], asyncio.Future[Decided]]] = field(default_factory=list)
    # The samples' questions whose claim extractions this batch waits for.
    awaits: set[str] = field(default_factory=set)
    version: int = 0
    # When the last question joined (the event loop's clock).
    last_added: float = 0.0

    def add(self, asked: Sequence[Asked]) -> tuple[str, ...]:
        names = []
        for one in asked:
            question = self.questions.get(one.key)
            if question is None:
                stem = _NAME_UNSAFE.sub("_", one.template).strip("_") or "q"
                question = Question(
                    name=f"{stem}_{len(self.questions) + 1}",
                    kind=one.kind,
                    instructions=one.instructions,
                    options=one.options,
                )
                self.questions[one.key] = question
            names.append(question.name)
        self.version += 1
        self.last_added = asyncio.get_running_loop().time()
        return tuple(names)


class Coalescer:
    """Gathers questions by (state, iteration) and asks ``model`` once per gathering.
    ``window_s`` is the quiet time after the last question registered before the
    request goes."""

    def __init__(self, model: DecisionModel, window_s: float = DEFAULT_WINDOW_S) -> None:
        if window_s < 0:
            raise ValueError(f"the grouping window must be 0 s or more, not {window_s}")
        self.model = model
        self.window_s = window_s
        self._open: dict[tuple[str, int], _Batch] = {}
        # Extractions in flight by (question, iteration), each with when it started.
        self._extracting: dict[tuple[str, int], dict[asyncio.Future[None], float]] = {}
        self._senders: set[asyncio.Task[None]] = set()

    @contextlib.contextmanager
    def extracting(self, question: str, iteration: int) -> Iterator[None]:
        """Marks a claim extraction for a sample (by its question) as in flight."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        key = (question, iteration)
        self._extracting.setdefault(key, {})[done] = loop.time()
        try:
            yield
        finally:
            done.set_result(None)
            flights = self._extracting[key]
            del flights[done]
            if not flights:
                del self._extracting[key]

    async def ask(
        self,
        state: str,
        asked: Sequence[Asked],
        *,
        iteration: int,
        awaits: str | None = None,
    ) -> Decided:
        """The answers to ``asked`` about ``state``, sent with every other question about
        it that arrives in time. ``awaits`` names the sample's question whose claim
        extractions in flight the request waits for (their claims' questions come next).
        Raises what the model raises."""
        key = (state, iteration)
        batch = self._open.get(key)
        if batch is None:
            batch = self._open[key] = _Batch(state, iteration)
            sender = asyncio.ensure_future(self._send_when_quiet(key, batch))
            self._senders.add(sender)
            sender.add_done_callback(self._senders.discard)
        names = batch.add(asked)
        if awaits is not None:
            batch.awaits.add(awaits)
        answered: asyncio.Future[Decided] = asyncio.get_running_loop().create_future()
        batch.callers.append((names, answered))
        return await answered

    def _in_flight(self, batch: _Batch) -> list[asyncio.Future[None]]:
        return [
            flight
            for question in batch.awaits
            for flight, started in self._extracting.get((question, batch.iteration), {}).items()
            # The sample's own extraction starts with its questions (a loop turn apart);
            # one started later is another sample's with the same question: not waited for.
            if started <= batch.last_added + max(self.window_s, SAME_SAMPLE_S)
        ]

    async def _send_when_quiet(self, key: tuple[str, int], batch: _Batch) -> None:
        while True:
            seen = batch.version
            await asyncio.sleep(self.window_s)
            # On a busy loop a window of wall time can pass before a caller a few steps
            # from asking (its claims just drawn) has run: quiet counts loop turns too.
            for _ in range(QUIET_TURNS):
                await asyncio.sleep(0)
            flights = self._in_flight(batch)
            if flights:
                await asyncio.wait(flights)
                continue  # the claims' questions follow the extraction: wait for them
            if batch.version == seen:
                break
        if self._open.get(key) is batch:
            del self._open[key]
        request = DecisionRequest(batch.state, tuple(batch.questions.values()))
        try:
            reply = await self.model.decide(request, iteration=batch.iteration)
        except BaseException as exc:
            for _, answered in batch.callers:
                if not answered.done():
                    answered.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
            return
        kinds = {question.name: question.kind for question in request.questions}
        for n, (names, answered) in enumerate(batch.callers):
            answers = tuple(
                reply.answers.get(name)
                or Answer(name, kinds[name], refusal="the model gave no answer to this question")
                for name in names
            )
            if not answered.done():
                answered.set_result(
                    Decided(
                        answers=answers,
                        usage=reply.usage if n == 0 else Usage(),
                        latency_s=reply.latency_s,
                        notes=reply.notes if n == 0 else (),
                    )
                )
