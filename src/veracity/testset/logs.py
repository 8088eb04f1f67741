"""Reading query logs: the dataset readers, with every sample's line kept."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from veracity.dataset import RowError
from veracity.dataset.normalize import normalize_row
from veracity.dataset.raw import RawRow
from veracity.dataset.reader import file_rows
from veracity.types import Sample


@dataclass(frozen=True, slots=True)
class LogRow:
    """One sample of a log, and where it came from (``line``, or ``item`` in a JSON array)."""

    sample: Sample
    path: str
    line: int | None
    item: int | None

    @property
    def position(self) -> int:
        """The line (or item) number: the order of the row in its file."""
        return self.line if self.line is not None else (self.item or 0)

    def problem(self, message: str) -> RowError:
        """A report about this row, located like a bad row (``file:line: message``)."""
        return RowError(path=self.path, line=self.line, item=self.item, message=message)


@dataclass
class RowCounter:
    """How many rows (records: lines, CSV rows, JSON items) a reading went through."""

    rows: int = 0


def read_log(path: str | Path, counter: RowCounter | None = None) -> Iterator[LogRow | RowError]:
    """The samples of a log file with their line, and a ``RowError`` per bad row, lazily.

    Any format and field alias :func:`veracity.dataset.read_dataset` accepts (JSONL,
    JSON, CSV; ``query``, ``user_input``, ``retrieved_contexts``, ``response``,
    ``queryLogId``, …); unknown fields go to ``metadata``. Unlike ``read_dataset`` a repeated
    id is not an error here: the caller de-duplicates. ``counter`` counts the rows read.
    A missing file or an unknown extension raises ``DatasetError``.
    """
    return _rows(file_rows(path, kind="log"), str(path), counter or RowCounter())


def _rows(
    raw_rows: Iterator[RawRow], name: str, counter: RowCounter
) -> Iterator[LogRow | RowError]:
    for row in raw_rows:
        counter.rows += 1
        result = row.error if row.error is not None else normalize_row(row.value)
        if isinstance(result, str):
            yield RowError(path=name, line=row.line, item=row.item, message=result)
            continue
        for sample in result:
            yield LogRow(sample=sample, path=name, line=row.line, item=row.item)
