"""Errors raised or reported while reading a dataset file."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from veracity._pickled import PickledWhole


@dataclass(frozen=True)
class RowError:
    """One bad row: reported in place of its sample(s), the rest of the file still loads.

    ``line`` is the 1-based physical line the row starts on (JSONL and CSV); ``item`` is
    the 1-based position of the row in the JSON array (JSON files); ``row`` is the 0-based
    index of a row given in memory (``samples[row]``, ``frame.iloc[row]``). ``path`` is
    the path as the caller gave it, or what the rows in memory are (``DataFrame``).
    """

    path: str
    line: int | None
    item: int | None
    message: str
    row: int | None = None

    @property
    def location(self) -> str:
        """Where the row is, e.g. ``data.jsonl:17``, ``data.json item 4``, ``DataFrame row 3``."""
        if self.line is not None:
            return f"{self.path}:{self.line}"
        if self.item is not None:
            return f"{self.path} item {self.item}"
        if self.row is not None:
            return f"{self.path} row {self.row}"
        return self.path

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


class DatasetError(Exception):
    """A problem with the whole file: it is missing, of an unknown kind, or unreadable."""


class NoValidSampleError(PickledWhole, DatasetError):
    """Every row was bad (or there was none): nothing could be evaluated. ``bad_rows``
    are the rows' problems; the message names the first few."""

    def __init__(self, source: str, bad_rows: Sequence[RowError]) -> None:
        self.source, self.bad_rows = source, tuple(bad_rows)
        if not self.bad_rows:
            super().__init__(f"no sample in {source}")
            return
        shown = "; ".join(str(row) for row in self.bad_rows[:3])
        more = f" (and {len(self.bad_rows) - 3} more)" if len(self.bad_rows) > 3 else ""
        super().__init__(
            f"no valid sample in {source}: {len(self.bad_rows)} bad row(s): {shown}{more}"
        )


class BadRowsWarning(UserWarning):
    """Some rows were bad and were left out (each is in ``EvaluationResult.bad_rows``)."""
