"""Micro-batching onto one worker thread, for the local models.

Many coroutines (one per sample) ask for a few vectors each; a model is far faster on
one batch of many texts than on many batches of a few. Calls that arrive while the
worker is busy wait together and go into the next call of ``process`` as one list; each
caller gets back its own slice of the results.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from veracity.embeddings.base import ModelOutputError

T = TypeVar("T", bound=Hashable)
R = TypeVar("R")
V = TypeVar("V")


@dataclass
class _Slot(Generic[R]):
    """One item on its way through the worker: its result, and how many callers wait."""

    future: asyncio.Future[R]
    waiting: int = 0


@dataclass
class _Request(Generic[T, R]):
    items: list[T]
    slots: list[_Slot[R]]


@dataclass
class _LoopState(Generic[T, R]):
    loop: asyncio.AbstractEventLoop
    pending: deque[_Request[T, R]] = field(default_factory=deque)
    # Items queued or being processed: a caller asking for one of them waits for it
    # rather than having it processed again.
    in_flight: dict[T, _Slot[R]] = field(default_factory=dict)
    task: asyncio.Task[None] | None = None


class MicroBatcher(Generic[T, R]):
    """Runs ``process`` (a blocking function: items in, one result per item out) on a
    single dedicated worker thread, merging concurrent :meth:`submit` calls.

    A merged call holds up to ``max_items`` items (a larger single request goes alone).
    An item already queued or being processed for another caller is not queued again:
    both get the one result (items must be hashable, and equal items must have equal
    results). :meth:`run` runs any other blocking function on the same thread (model
    loading), so the model is only ever touched by that thread and the event loop never
    blocks. ``process_calls`` counts the calls of ``process``.

    The asyncio side is made per event loop, so one batcher can serve several
    ``asyncio.run`` calls one after the other.
    """

    def __init__(
        self,
        process: Callable[[list[T]], list[R]],
        *,
        max_items: int = 1024,
        thread_name: str = "veracity-model",
    ) -> None:
        if max_items < 1:
            raise ValueError(f"max_items must be at least 1, got {max_items}")
        self._process = process
        self.max_items = max_items
        self.thread_name = thread_name
        self.process_calls = 0
        self._pool: ThreadPoolExecutor | None = None
        self._state: _LoopState[T, R] | None = None

    def _executor(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=self.thread_name)
        return self._pool

    def _loop_state(self) -> _LoopState[T, R]:
        loop = asyncio.get_running_loop()
        if self._state is None or self._state.loop is not loop:
            self._state = _LoopState(loop)
        return self._state

    async def run(self, fn: Callable[[], V]) -> V:
        """Run ``fn`` on the worker thread, after whatever it is doing now."""
        return await asyncio.get_running_loop().run_in_executor(self._executor(), fn)

    async def submit(self, items: Sequence[T]) -> list[R]:
        """``process(items)``, possibly as part of a larger call shared with other callers."""
        if not items:
            return []
        state = self._loop_state()
        slots: list[_Slot[R]] = []
        fresh: _Request[T, R] = _Request([], [])
        for item in items:
            slot = state.in_flight.get(item)
            if slot is None or slot.future.cancelled():
                slot = _Slot(state.loop.create_future())
                state.in_flight[item] = slot
                fresh.items.append(item)
                fresh.slots.append(slot)
            slot.waiting += 1
            slots.append(slot)
        if fresh.items:
            state.pending.append(fresh)
            if state.task is None or state.task.done():
                state.task = state.loop.create_task(self._drain(state))
        try:
            # wait() leaves the futures alone if this caller is cancelled: others may
            # be waiting for the same items.
            await asyncio.wait({slot.future for slot in slots})
        finally:
            for slot in slots:
                slot.waiting -= 1
                if not slot.waiting and not slot.future.done():
                    slot.future.cancel()  # nobody wants it any more
        return [slot.future.result() for slot in slots]

    def _take(self, pending: deque[_Request[T, R]]) -> list[_Request[T, R]]:
        batch: list[_Request[T, R]] = []
        size = 0
        while pending:
            request = pending[0]
            if all(slot.future.done() for slot in request.slots):  # its callers were cancelled
                pending.popleft()
                continue
            if batch and size + len(request.items) > self.max_items:
                break
            batch.append(pending.popleft())
            size += len(request.items)
        return batch

    def _call_process(self, items: list[T]) -> list[R]:
        self.process_calls += 1
        outputs = self._process(items)
        if len(outputs) != len(items):
            raise ModelOutputError(f"{len(outputs)} results for {len(items)} inputs")
        return outputs

    async def _drain(self, state: _LoopState[T, R]) -> None:
        batch: list[_Request[T, R]] = []
        try:
            while batch := self._take(state.pending):
                flat = [item for request in batch for item in request.items]
                slots = [slot for request in batch for slot in request.slots]
                try:
                    outputs: list[R] | None = await state.loop.run_in_executor(
                        self._executor(), self._call_process, flat
                    )
                    error: Exception | None = None
                except Exception as exc:
                    outputs, error = None, exc
                for index, (item, slot) in enumerate(zip(flat, slots, strict=True)):
                    if state.in_flight.get(item) is slot:
                        del state.in_flight[item]
                    if slot.future.done():
                        continue
                    if outputs is not None:
                        slot.future.set_result(outputs[index])
                    else:
                        assert error is not None
                        slot.future.set_exception(error)
        finally:
            # Only reached with work left if this task was cancelled (the loop is
            # shutting down): nobody may be left waiting forever.
            for request in [*batch, *state.pending]:
                for slot in request.slots:
                    slot.future.cancel()
            state.pending.clear()
            state.in_flight.clear()

    def close(self) -> None:
        """Stop the worker thread once its current work is done; a later call starts a
        new one."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
