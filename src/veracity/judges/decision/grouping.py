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
import dataclasses
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from veracity.decisions.base import (
    Answer,
    DecisionModel,
    DecisionReply,
    DecisionRequest,
    Option,
    PartlyDecidedError,
    Question,
    QuestionKind,
)
from veracity.transport.limits import DEFAULT_GROUPING_S
from veracity.types import Usage

__all__ = ["Asked", "Coalescer", "Decided", "Extraction"]

DEFAULT_WINDOW_S = DEFAULT_GROUPING_S
QUIET_TURNS = 16
# How long after a sample's claims were drawn their questions are waited for, at most.
CLAIMS_WAIT_S = 1.0
# How long an ended extraction is remembered (a request may open after it).
_KEPT_S = 5.0
# How many samples' extractions are remembered before those long ended are dropped.
_SWEEP_AT = 1024
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


@dataclass(eq=False)
class Extraction:
    """A claim extraction of the judge's: when it started and ended (the event loop's
    clock), and whether it drew claims (the judge says so: their questions follow)."""

    started: float
    done: asyncio.Future[None]
    ended: float | None = None
    found: bool = False


@dataclass
class _Batch:
    state: str
    iteration: int
    opened: float
    questions: dict[tuple[str, str, tuple[Option, ...]], Question] = field(default_factory=dict)
    callers: list[tuple[tuple[str, ...], asyncio.Future[Decided]]] = field(default_factory=list)
    # The samples' questions whose claim extractions this batch waits for.
    awaits: set[str] = field(default_factory=set)
    version: int = 0
    # Extractions started up to here (the event loop's clock) are the batch's samples':
    # set at the first look after a caller that awaits extractions joined.
    horizon: float | None = None
    # When claim questions last joined.
    claims_joined: float | None = None

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
        return tuple(names)


class Coalescer:
    """Gathers questions by (state, iteration) and asks ``model`` once per gathering.

    A gathering goes after ``window_s`` of quiet (and :data:`QUIET_TURNS` turns of the
    event loop) since the last question joined. One that a sample's chunk questions
    opened (``awaits``: the sample's question) also waits for that sample's claim
    extractions in flight, and, where they drew claims, for the claims' questions, at
    most :data:`CLAIMS_WAIT_S` after they were drawn (claims that never come, say
    because no metric verifies them, hold the request no longer)."""

    def __init__(self, model: DecisionModel, window_s: float = DEFAULT_WINDOW_S) -> None:
        if window_s < 0:
            raise ValueError(f"the grouping window must be 0 s or more, not {window_s}")
        self.model = model
        self.window_s = window_s
        self._open: dict[tuple[str, int], _Batch] = {}
        # The extractions by (question, iteration): those in flight and, for a while,
        # those that ended (a request may open after its sample's claims were drawn).
        self._extractions: dict[tuple[str, int], list[Extraction]] = {}
        self._senders: set[asyncio.Task[None]] = set()
        self._sweep_at = _SWEEP_AT

    @contextlib.contextmanager
    def extracting(self, question: str, iteration: int) -> Iterator[Extraction]:
        """Marks a claim extraction for a sample (by its question) as in flight; the
        caller sets ``found`` on what it yields when claims were drawn."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        key = (question, iteration)
        kept = [
            e for e in self._extractions.get(key, ()) if e.ended is None or now - e.ended < _KEPT_S
        ]
        extraction = Extraction(started=now, done=loop.create_future())
        self._extractions[key] = [*kept, extraction]
        if len(self._extractions) > self._sweep_at:
            self._forget_ended(now)
        try:
            yield extraction
        finally:
            extraction.ended = loop.time()
            extraction.done.set_result(None)

    async def ask(
        self,
        state: str,
        asked: Sequence[Asked],
        *,
        iteration: int,
        awaits: str | None = None,
        claims: bool = False,
    ) -> Decided:
        """The answers to ``asked`` about ``state``, sent with every other question about
        it that arrives in time. ``awaits`` names the sample's question whose claim
        extractions the request waits for (their claims' questions come next); ``claims``
        says ``asked`` are such claims' questions. Raises what the model raises."""
        key = (state, iteration)
        batch = self._open.get(key)
        loop = asyncio.get_running_loop()
        if batch is None:
            batch = self._open[key] = _Batch(state, iteration, opened=loop.time())
            sender = asyncio.ensure_future(self._send_when_quiet(key, batch))
            self._senders.add(sender)
            sender.add_done_callback(self._senders.discard)
        names = batch.add(asked)
        if awaits is not None:
            batch.awaits.add(awaits)
            batch.horizon = None
        if claims:
            batch.claims_joined = loop.time()
        answered: asyncio.Future[Decided] = loop.create_future()
        batch.callers.append((names, answered))
        return await answered

    def _forget_ended(self, now: float) -> None:
        """Drop the samples whose extractions all ended long ago: a run of any size keeps
        only those of the samples in flight (the sweep's cost is spread over the calls
        that fill the table again)."""
        self._extractions = {
            key: kept
            for key, found in self._extractions.items()
            if (kept := [e for e in found if e.ended is None or now - e.ended < _KEPT_S])
        }
        self._sweep_at = max(_SWEEP_AT, 2 * len(self._extractions))

    def _samples_extractions(self, batch: _Batch) -> list[Extraction]:
        # The sample's own extraction starts with its questions, a loop turn apart, so
        # before the first look after they joined; one started after that look is another
        # sample's with the same question: not waited for (a steady stream of those would
        # hold the request until the stream ends).
        if batch.horizon is None:
            batch.horizon = asyncio.get_running_loop().time()
        return [
            e
            for question in batch.awaits
            for e in self._extractions.get((question, batch.iteration), ())
            if e.started <= batch.horizon and (e.ended is None or e.ended >= batch.opened)
        ]

    def _claims_due(self, batch: _Batch, extractions: Sequence[Extraction]) -> bool:
        """Whether claims were drawn for the batch's samples whose questions have not
        joined yet, and may still."""
        drawn = [e.ended for e in extractions if e.found and e.ended is not None]
        if not drawn:
            return False
        last = max(drawn)
        joined = batch.claims_joined is not None and batch.claims_joined >= last
        return not joined and asyncio.get_running_loop().time() - last < CLAIMS_WAIT_S

    async def _send_when_quiet(self, key: tuple[str, int], batch: _Batch) -> None:
        while True:
            seen = batch.version
            await asyncio.sleep(self.window_s)
            # On a busy loop a window of wall time can pass before a caller a few steps
            # from asking (its claims just drawn) has run: quiet counts loop turns too.
            for _ in range(QUIET_TURNS):
                await asyncio.sleep(0)
            extractions = self._samples_extractions(batch)
            running = [e.done for e in extractions if e.ended is None]
            if running:
                await asyncio.wait(running)
                continue  # the claims' questions follow the extraction: wait for them
            if self._claims_due(batch, extractions):
                continue
            if batch.version == seen:
                break
        if self._open.get(key) is batch:
            del self._open[key]
        request = DecisionRequest(batch.state, tuple(batch.questions.values()))
        try:
            reply = await self.model.decide(request, iteration=batch.iteration)
        except PartlyDecidedError as exc:
            _answer(batch.callers, request, exc.reply, failed=exc)
            return
        except BaseException as exc:
            for _, answered in batch.callers:
                if not answered.done():
                    answered.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
            return
        _answer(batch.callers, request, reply)


def _answer(
    callers: Sequence[tuple[tuple[str, ...], asyncio.Future[Decided]]],
    request: DecisionRequest,
    reply: DecisionReply,
    *,
    failed: PartlyDecidedError | None = None,
) -> None:
    """Each caller's answers from ``reply``. When part of the request ``failed``, a caller
    whose questions all came back still gets its answers, the others the error; the
    request's cost goes to the first caller still waiting either way, so totals add up."""
    kinds = {question.name: question.kind for question in request.questions}
    charged = False
    for names, answered in callers:
        if answered.done():  # cancelled
            continue
        usage = Usage() if charged else reply.usage
        notes = () if charged else reply.notes
        charged = True
        if failed is not None and not all(name in reply.answers for name in names):
            mine = {name: reply.answers[name] for name in names if name in reply.answers}
            theirs = dataclasses.replace(reply, answers=mine, usage=usage, notes=notes)
            answered.set_exception(PartlyDecidedError(str(failed), theirs))
            continue
        answers = tuple(
            reply.answers.get(name)
            or Answer(name, kinds[name], refusal="the model gave no answer to this question")
            for name in names
        )
        answered.set_result(
            Decided(answers=answers, usage=usage, latency_s=reply.latency_s, notes=notes)
        )
