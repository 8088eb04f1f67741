"""The progress display of a run: counts, ETA, tokens and cost so far, on a terminal only."""

from __future__ import annotations

from contextlib import AbstractContextManager
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from veracity.types import ResultRecord, Usage


class RunProgress(AbstractContextManager["RunProgress"]):
    """Counts results as they finish; silent (and cheap) when stderr is not a terminal."""

    def __init__(self, console: Console, total: int | None) -> None:
        self.enabled = console.is_terminal
        self.usage = Usage()
        self.cost = 0.0
        self._progress = Progress(
            TextColumn("[bold]judging"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[spent]}"),
            console=console,
            transient=True,
            disable=not self.enabled,
        )
        self._task = self._progress.add_task("run", total=total, spent="")

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
        self.usage += record.usage
        self.cost += record.cost_usd or 0.0
        tokens = self.usage.input_tokens + self.usage.output_tokens
        spent = f"{self.usage.calls} calls · {tokens:,} tokens · ${self.cost:.4f}"
        self._progress.update(self._task, advance=1, spent=spent)
