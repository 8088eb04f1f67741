"""A chat model whose calls go through the provider's batch API, at batch prices.

Every call is queued rather than sent. Once no new call has come for ``quiet_s`` (every
question the run can ask now is waiting on an answer), the queue goes out as one phase:
one batch, split where it exceeds the provider's limits. A question that depends on an
answer (verdicts on extracted claims, a re-ask) is asked when that answer arrives, so it
falls in the next phase. Each batch is written down (:class:`BatchLedger`) the moment it
is created, before it is polled: a run killed while waiting finds its batches there and
polls them again instead of paying twice. Each reply then takes the path a live reply
takes (the response cache in front, the same parsing and results).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from veracity.chat.base import ChatReply, OverModel
from veracity.chat.batch_api import BatchApi, BatchState, Failed, Outcome
from veracity.chat.batch_ledger import BatchLedger
from veracity.chat.cache import cache_key
from veracity.chat.sdk import RequestOptions, SDKChat
from veracity.prompts import ChatMessage, OutputSpec
from veracity.transport import CallFailedError, JudgeFatalError

# How long closing waits for the provider's copies of finished batches to be deleted.
DISCARD_WAIT_S = 10.0


@dataclass(frozen=True, slots=True)
class BatchStatus:
    """What the progress display shows of a batch: its phase, the provider's status and
    its counts so far."""

    phase: int
    batch_id: str
    state: BatchState


@dataclass(frozen=True)
class BatchSettings:
    """How a batch run waits. ``poll_s``: the first wait between two looks at a batch,
    growing by half each time up to twenty times as long. ``quiet_s``: how long no new
    question must come before a phase goes out. ``window``: how many samples the run
    holds at once (all of a phase's questions come from them). ``on_status``: told of
    every look at a batch."""

    poll_s: float = 30.0
    quiet_s: float = 1.0
    window: int = 10_000
    on_status: Callable[[BatchStatus], None] | None = None


@dataclass(slots=True)
class _Request:
    """A call waiting for its reply: what it asks, with the options it was sent with."""

    messages: Sequence[ChatMessage]
    output: OutputSpec
    options: RequestOptions
    line: bytes
    future: asyncio.Future[ChatReply]


class BatchingChat(OverModel[SDKChat[Any]]):
    """``model`` (an OpenAI or Anthropic chat model) through its provider's batch API
    (``api``); the batches written down in ``ledger_path`` (``None``: in memory only)."""

    def __init__(
        self,
        model: SDKChat[Any],
        api: BatchApi,
        *,
        ledger_path: Path | None,
        settings: BatchSettings | None = None,
    ) -> None:
        self.model = model
        self.api = api
        self.ledger_path = ledger_path
        self.settings = settings or BatchSettings()
        self._ledger: BatchLedger | None = None
        self._queue: dict[str, _Request] = {}
        self._waiting: dict[str, _Request] = {}
        self._ready: dict[str, Outcome] = {}  # results of ended batches not yet asked for
        self._answered: set[str] = set()  # asked again after this: goes to a new batch
        self._polling: dict[str, asyncio.Task[None]] = {}
        self._discarding: set[asyncio.Task[None]] = set()
        self._dispatcher: asyncio.Task[None] | None = None
        self._last_queued = 0.0
        self._phase = 0

    # ------------------------------------------------------------------ ChatModel

    @property
    def concurrency(self) -> int:
        # The run's window is twice this: every sample of a phase must be in it.
        return max(1, self.settings.window // 2)

    def describe(self) -> dict[str, Any]:
        return {**self.model.describe(), "batch": True}

    # The options the endpoint accepted are the model's: learnt and remembered as live.
    def negotiation_key(self) -> str:
        return self.model.negotiation_key()

    def negotiated(self) -> dict[str, Any]:
        return self.model.negotiated()

    def adopt(self, state: Mapping[str, Any]) -> None:
        self.model.adopt(state)

    def ledger(self) -> BatchLedger:
        # Opened at first use: by then the run directory exists and is locked.
        if self._ledger is None:
            self._ledger = BatchLedger(self.ledger_path)
            self._phase = self._ledger.phase()
        return self._ledger

    async def complete(
        self, messages: Sequence[ChatMessage], output: OutputSpec, *, iteration: int
    ) -> ChatReply:
        key = cache_key(self, messages, output, iteration)
        request = self._waiting.get(key)
        if request is None:
            future = asyncio.get_running_loop().create_future()
            line = self.api.line(key, messages, output)
            request = _Request(messages, output, self.model.options, line, future)
            self._waiting[key] = request
            self._route(key, request)
        # Shielded: one caller giving up does not take the answer from another.
        return await asyncio.shield(request.future)

    def _route(self, key: str, request: _Request) -> None:
        """Answer ``key`` from an ended batch, wait for the batch it is in, or queue it."""
        if key not in self._answered:
            if key in self._ready:
                self._settle({key: self._ready.pop(key)})
                return
            batch_id = self.ledger().batch_of(key)
            if batch_id is not None:  # sent by an earlier attempt: wait for it again
                self._poll(batch_id, self.ledger().phase_of(batch_id))
                return
        self._queue[key] = request
        self._last_queued = time.monotonic()
        if self._dispatcher is None or self._dispatcher.done():
            self._dispatcher = asyncio.create_task(self._dispatch())

    # ------------------------------------------------------------------ phases

    async def _dispatch(self) -> None:
        try:
            while self._queue:
                quiet = self.settings.quiet_s
                while (wait := self._last_queued + quiet - time.monotonic()) > 0 and len(
                    self._queue
                ) < self.api.max_requests:
                    await asyncio.sleep(wait)
                taken, self._queue = self._queue, {}
                self._phase += 1
                for chunk in self._chunks(taken):
                    await self._submit(chunk, self._phase)
        except Exception as exc:  # told to whoever waits (a task's error would go unread)
            self._fail([*self._queue, *self._waiting], exc)

    def _chunks(self, taken: Mapping[str, _Request]) -> list[dict[str, _Request]]:
        """``taken`` in batches within the provider's limits of requests and bytes."""
        chunks: list[dict[str, _Request]] = [{}]
        size = 0
        for key, request in taken.items():
            grown = size + len(request.line) + 1
            if chunks[-1] and (
                len(chunks[-1]) >= self.api.max_requests or grown > self.api.max_bytes
            ):
                chunks.append({})
                grown = len(request.line) + 1
            chunks[-1][key] = request
            size = grown
        return chunks

    async def _submit(self, chunk: Mapping[str, _Request], phase: int) -> None:
        try:
            batch_id = await self.api.submit([request.line for request in chunk.values()])
        except JudgeFatalError as exc:
            where = self.model.describe().get("base_url") or self.model.provider
            raise JudgeFatalError(
                f"cannot create a batch at {where}: {exc} (does this endpoint have the "
                f"{self.model.provider} batch API? run without --batch to call it live)"
            ) from None
        except CallFailedError as exc:
            self._fail(list(chunk), CallFailedError(f"the batch could not be created: {exc}"))
            return
        # Written down before anything waits on it: a run killed from now on polls it again.
        self.ledger().record(batch_id, phase, list(chunk))
        self._poll(batch_id, phase)

    def _poll(self, batch_id: str, phase: int) -> None:
        task = self._polling.get(batch_id)
        if task is None or task.done():
            self._polling[batch_id] = asyncio.create_task(self._wait_for(batch_id, phase))

    async def _wait_for(self, batch_id: str, phase: int) -> None:
        keys = self.ledger().keys_of(batch_id)
        outcomes: dict[str, Outcome] = {}
        try:
            state = await self._until_ended(batch_id, phase)
            if state is not None and state.error is not None:
                self.ledger().settle(keys)  # nothing to wait for: a re-run sends them anew
                raise JudgeFatalError(f"batch {batch_id} failed: {state.error}")
            if state is not None:  # else the endpoint does not know it (any more): sent anew
                latency = time.time() - self.ledger().submitted_at(batch_id)
                outcomes = await self.api.results(batch_id, latency)
        except Exception as exc:  # told to whoever waits (a task's error would go unread)
            self._fail(keys, exc)
            return
        missing = [key for key in keys if key not in outcomes]
        self.ledger().settle(missing)
        self._settle(outcomes)
        for key in missing:  # expired, cancelled or unknown: in the next phase
            request = self._waiting.get(key)
            if request is not None:
                self._route(key, request)
        if state is not None and not any(key in self._ready for key in outcomes):
            # Every result is delivered: the provider's copy is no longer needed. (Results
            # kept for later askers keep it, so that a killed run can still read them.)
            task = asyncio.create_task(self._discard(batch_id))
            self._discarding.add(task)
            task.add_done_callback(self._discarding.discard)

    async def _discard(self, batch_id: str) -> None:
        # Best effort: a copy left behind is the provider's to expire, never a run's error.
        with contextlib.suppress(Exception):
            await self.api.discard(batch_id)

    async def _until_ended(self, batch_id: str, phase: int) -> BatchState | None:
        """The batch once it has ended; ``None`` if the endpoint has no such batch."""
        interval = self.settings.poll_s
        while True:
            try:
                state = await self.api.state(batch_id)
            except CallFailedError:
                state = None  # the batch goes on without us: look again later
            except JudgeFatalError as exc:
                if str(exc).startswith("HTTP 404"):
                    return None
                raise
            if state is not None:
                if self.settings.on_status is not None:
                    self.settings.on_status(BatchStatus(phase, batch_id, state))
                if state.ended:
                    return state
            await asyncio.sleep(interval)
            interval = min(interval * 1.5, self.settings.poll_s * 20)

    def _settle(self, outcomes: Mapping[str, Outcome]) -> None:
        """Hand each outcome to whoever waits for it; keep the others for later askers."""
        delivered = []
        resent: list[tuple[str, _Request]] = []
        for key, outcome in outcomes.items():
            request = self._waiting.pop(key, None)
            if request is None:
                self._ready[key] = outcome
                continue
            delivered.append(key)
            self._answered.add(key)
            if request.future.done():
                continue
            if isinstance(outcome, Failed):
                if self._stepped_down(request, outcome):
                    resent.append((key, request))
                    continue
                request.future.set_exception(CallFailedError(outcome.message))
            else:
                request.future.set_result(outcome)
        self.ledger().settle(delivered)
        for key, request in resent:  # in the next phase, without what the endpoint refused
            request.options = self.model.options
            request.line = self.api.line(key, request.messages, request.output)
            self._waiting[key] = request
            self._route(key, request)

    def _stepped_down(self, request: _Request, failure: Failed) -> bool:
        """Whether ``failure`` refused an option of the request that the model has now
        dropped (as a live call's rejection would make it): then it is sent again."""
        rejected = self.model.rejection(failure.status, failure.message)
        return rejected is not None and self.model.step_down(request.options, rejected)

    def _fail(self, keys: Sequence[str], exc: Exception) -> None:
        for key in keys:
            request = self._waiting.pop(key, None)
            self._queue.pop(key, None)
            if request is not None and not request.future.done():
                request.future.set_exception(exc)

    async def aclose(self) -> None:
        if self._discarding:  # the last batch's deletion, begun as its results went out
            await asyncio.wait(self._discarding, timeout=DISCARD_WAIT_S)
        tasks = [*self._polling.values(), *([self._dispatcher] if self._dispatcher else [])]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        self._polling.clear()
        self._dispatcher = None
        if self._ledger is not None:
            self._ledger.close()
            self._ledger = None
        await self.model.aclose()
