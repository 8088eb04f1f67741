"""Micro-batching onto one worker thread, for the local models.

Many coroutines (one per sample) ask for a few vectors each; a model is far faster on
one batch of many texts than on many batches of a few. Calls that arrive while the
worker is busy wait together and go into the next call of ``process`` as one list; each
caller gets back its own slice of the results.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from veracity.embeddings.base import ModelOutputError

T = TypeVar("T")
R = TypeVar("R")
V = TypeVar("V")


@dataclass
class _Request(Generic[T, R]):
    items: list[T]
    future: asyncio.Future[list[R]]


@dataclass
class _LoopState(Generic[T, R]):
    loop: asyncio.AbstractEventLoop
    pending: deque[_Request[T, R]] = field(default_factory=deque)
    task: asyncio.Task[None] | None = None


class MicroBatcher(Generic[T, R]):
    """Runs ``process`` (a blocking function: items in, one result per item out) on a
    single dedicated worker thread, merging concurrent :meth:`submit` calls.

    A merged call holds up to ``max_items`` items (a larger single request goes alone).
    :meth:`run` runs any other blocking function on the same thread (model loading), so
    the model is only ever touched by that thread and the event loop never blocks.
    ``process_calls`` counts the calls of ``process``.

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
        request: _Request[T, R] = _Request(list(items), state.loop.create_future())
        state.pending.append(request)
        if state.task is None or state.task.done():
            state.task = state.loop.create_task(self._drain(state))
        return await request.future

    def _take(self, pending: deque[_Request[T, R]]) -> list[_Request[T, R]]:
        batch: list[_Request[T, R]] = []
        size = 0
        while pending:
            request = pending[0]
            if request.future.done():  # its caller was cancelled
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
                try:
                    outputs = await state.loop.run_in_executor(
                        self._executor(), self._call_process, flat
                    )
                except Exception as exc:
                    for request in batch:
                        if not request.future.done():
                            request.future.set_exception(exc)
                    continue
                start = 0
                for request in batch:
                    end = start + len(request.items)
                    if not request.future.done():
                        request.future.set_result(outputs[start:end])
                    start = end
        finally:
            # Only reached with work left if this task was cancelled (the loop is
            # shutting down): nobody may be left waiting forever.
            for request in [*batch, *state.pending]:
                request.future.cancel()
            state.pending.clear()

    def close(self) -> None:
        """Stop the worker thread once its current work is done; a later call starts a
        new one."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
