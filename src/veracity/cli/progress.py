"""The progress display of a run: counts, ETA, tokens and cost so far, on a terminal only."""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import timedelta
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from veracity.chat.batching import BatchStatus
from veracity.types import ResultRecord, Usage


class SteadyEta:
    """The time a run has left, at the pace of its recent results.

    The first results of a run are slow (a model loading, the first calls opening their
    connections): a rate over all results, or over the first two, puts minutes on a run
    that ends in seconds. The pace here is that of the later half of the results so far
    (at most the last ``window``), so the slow start weighs less and less, and nothing is
    estimated before ``min_results`` are in. Between results the estimate counts down;
    when it has run out (the run stalled), it says nothing rather than 0.
    """

    def __init__(self, *, min_results: int = 8, window: int = 256) -> None:
        self.min_results = min_results
        self._times: deque[float] = deque(maxlen=window)
        self._count = 0

    def add(self, now: float) -> None:
        """One result finished at ``now``."""
        self._times.append(now)
        self._count += 1

    def remaining(self, left: int, now: float) -> float | None:
        """Seconds to finish ``left`` more results, or ``None`` when there is no telling."""
        if left <= 0:
            return 0.0
        if self._count < self.min_results:
            return None
        recent = len(self._times) // 2
        span = self._times[-1] - self._times[-1 - recent]  # ``recent`` results came in it
        if span <= 0:
            return None
        eta = left * span / recent - (now - self._times[-1])
        return eta if eta >= 0 else None


class _EtaColumn(ProgressColumn):
    def __init__(self, eta: SteadyEta) -> None:
        super().__init__()
        self._eta = eta

    def render(self, task: Task) -> Text:
        left = None if task.total is None else int(task.total - task.completed)
        seconds = None if left is None else self._eta.remaining(left, task.get_time())
        shown = "-:--:--" if seconds is None else str(timedelta(seconds=math.ceil(seconds)))
        return Text(shown, style="progress.remaining")


class RunProgress(AbstractContextManager["RunProgress"]):
    """Counts results as they finish; silent (and cheap) when stderr is not a terminal."""

    def __init__(
        self,
        console: Console,
        total: int | None,
        clock: Callable[[], float] = time.monotonic,
        *,
        done: int = 0,
    ) -> None:
        self.enabled = console.is_terminal
        self._console = console
        self._batches: dict[str, str] = {}  # what each batch last showed
        self.usage = Usage()
        self.cost = 0.0
        self.eta = SteadyEta()
        self._clock = clock
        self._progress = Progress(
            TextColumn("[bold]judging"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            _EtaColumn(self.eta),
            TextColumn("{task.fields[spent]}"),
            TextColumn("{task.fields[batch]}"),
            console=console,
            transient=True,
            disable=not self.enabled,
            get_time=clock,
        )
        # A resumed run starts where the last attempt stopped: its done results are not
        # redone, so they count as completed and stay out of the ETA's pace.
        self._task = self._progress.add_task("run", total=total, completed=done, spent="", batch="")

    def __enter__(self) -> RunProgress:
        self._progress.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._progress.stop()

    def __call__(self, record: ResultRecord) -> None:
        if not self.enabled:
            return
        self.eta.add(self._clock())
        self.usage += record.usage
        self.cost += record.cost_usd or 0.0
        tokens = self.usage.input_tokens + self.usage.output_tokens
        spent = f"{self.usage.calls} calls · {tokens:,} tokens · ${self.cost:.4f}"
        self._progress.update(self._task, advance=1, spent=spent)

    def batch(self, status: BatchStatus) -> None:
        """A batch run's latest look at a batch: its phase, status and counts. Off a
        terminal (a nightly job's log) each change is a line: batches take hours."""
        state = status.state
        shown = f"phase {status.phase}: {state.status} {state.done}/{state.total}"
        if state.failed:
            shown += f", {state.failed} failed"
        if self.enabled:
            self._progress.update(self._task, batch=f"· {shown}")
        elif self._batches.get(status.batch_id) != shown:
            self._batches[status.batch_id] = shown
            self._console.print(f"batch {status.batch_id}, {shown}", highlight=False)
