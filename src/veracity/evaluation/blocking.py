"""Running a coroutine to completion from synchronous code, even where an event loop runs.

A Jupyter notebook runs its cells inside an event loop, where ``asyncio.run`` refuses to
start. The coroutine then runs on a worker thread with its own loop, while the calling
thread waits (and may refresh a display meanwhile). Nothing global is patched.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections.abc import Callable, Coroutine
from typing import Any, Generic, TypeVar

T = TypeVar("T")

# How often the waiting thread wakes up to call ``on_wait``.
WAIT_INTERVAL_S = 0.5


def running_loop() -> bool:
    """Whether this thread is inside a running event loop (a notebook cell is)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def run_blocking(
    make: Callable[[], Coroutine[Any, Any, T]],
    on_wait: Callable[[], None] | None = None,
) -> T:
    """Run the coroutine ``make()`` returns and give its result (or raise its exception).

    Outside an event loop and without ``on_wait`` it is ``asyncio.run``. Else it runs on a
    worker thread (the coroutine is made there, so it is never left un-awaited), and
    ``on_wait`` is called on this thread every :data:`WAIT_INTERVAL_S` while it runs. A
    ``KeyboardInterrupt`` here (a notebook's interrupt) cancels the coroutine, waits for
    it to wind up, and is raised.
    """
    if on_wait is None and not running_loop():
        return asyncio.run(make())
    worker = _Worker(make)
    # The worker sees this thread's context variables, as asyncio.to_thread's would.
    thread = threading.Thread(
        target=contextvars.copy_context().run, args=(worker.run,), name="veracity-evaluate"
    )
    # Waiting on an event, not on thread.join(): on Python 3.11 an interrupt that lands in
    # join() leaves the thread marked as finished while it still runs.
    try:
        thread.start()  # inside: an interrupt as it starts must stop it too
        while not worker.finished.wait(WAIT_INTERVAL_S):
            if on_wait is not None:
                on_wait()
    except KeyboardInterrupt:
        worker.cancel()
        if thread.ident is not None:  # it started: wait for it to wind up
            worker.finished.wait()
        raise
    thread.join()
    return worker.outcome()


class _Worker(Generic[T]):
    """The coroutine on its own thread and loop, cancellable from another thread."""

    def __init__(self, make: Callable[[], Coroutine[Any, Any, T]]) -> None:
        self._make = make
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[T] | None = None
        self._cancelled = False
        self._result: T | None = None
        self._error: BaseException | None = None
        self.finished = threading.Event()

    def run(self) -> None:
        try:
            self._result = asyncio.run(self._main())
        except BaseException as exc:  # handed to the waiting thread
            self._error = exc
        finally:
            self.finished.set()

    async def _main(self) -> T:
        task = asyncio.current_task()
        assert task is not None
        with self._lock:
            if self._cancelled:
                raise asyncio.CancelledError
            self._loop, self._task = asyncio.get_running_loop(), task
        return await self._make()

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            if self._loop is not None and self._task is not None:
                # The loop may have closed as the interrupt came: then nothing is left to stop.
                with contextlib.suppress(RuntimeError):
                    self._loop.call_soon_threadsafe(self._task.cancel)

    def outcome(self) -> T:
        if self._error is not None:
            raise self._error
        return self._result  # type: ignore[return-value]
