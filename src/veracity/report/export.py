"""A run's results as a flat file: CSV, JSON Lines or Parquet, written as they stream.

Every format has the columns of :data:`~veracity.report.table.RESULT_COLUMNS`, with
``details`` as JSON text: the same table whatever the format.
"""

from __future__ import annotations

import csv
import io
import os
import tempfile
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any, Final, TextIO

from veracity.report.table import COLUMN_TYPES, RESULT_COLUMNS, flat_result
from veracity.store import dumps, write_text_atomic
from veracity.store.files import ordinary_mode
from veracity.types import ResultRecord

FORMATS: Final = ("csv", "jsonl", "parquet")
#: What to install for a format that needs more than veracity itself.
PARQUET_NEEDS: Final = "--format parquet needs pyarrow: pip install 'veracity[parquet]'"
# What a spreadsheet reads as the start of a formula (OWASP's list): such a text cell is
# written with a leading ' so that opening the CSV runs nothing.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# Rows per Parquet row group: memory stays bounded however many results there are.
_BATCH = 10_000


class ExportError(ValueError):
    """An export that cannot be made as asked (a format this installation cannot write)."""


def export_rows(records: Iterable[ResultRecord]) -> Iterator[dict[str, Any]]:
    """The flat rows of ``records``, ``details`` as JSON text."""
    for record in records:
        row = flat_result(record)
        row["details"] = dumps(row["details"])
        yield row


def safe_cell(value: Any) -> Any:
    """A CSV cell that a spreadsheet shows as text: a text starting like a formula gets a
    leading ``'``; numbers (negative ones too) stay numbers."""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def write_export(
    records: Iterable[ResultRecord], fmt: str, out: Path | TextIO, *, raw_cells: bool = False
) -> int:
    """Write ``records`` as ``fmt`` to the file ``out`` (atomically: all or nothing) or to
    the text stream ``out`` (CSV and JSON Lines only); return how many rows were written.

    CSV text cells that would start a formula are neutralised (:func:`safe_cell`) unless
    ``raw_cells``. Parquet needs pyarrow (:class:`ExportError` when it is not installed).
    """
    if fmt not in FORMATS:
        raise ExportError(f"unknown format {fmt!r} (expected {', '.join(FORMATS)})")
    counted = _Counted(export_rows(records))
    if fmt == "parquet":
        if not isinstance(out, Path):
            raise ExportError("--format parquet writes a file: give --out FILE")
        _write_parquet(counted, out)
        return counted.count
    chunks = (
        _csv_chunks(counted, raw_cells) if fmt == "csv" else (dumps(row) + "\n" for row in counted)
    )
    if isinstance(out, Path):
        write_text_atomic(out, chunks)
    else:
        out.writelines(chunks)
    return counted.count


class _Counted:
    def __init__(self, rows: Iterator[dict[str, Any]]) -> None:
        self._rows, self.count = rows, 0

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for row in self._rows:
            self.count += 1
            yield row


def _as_is(value: Any) -> Any:
    return value


def _csv_chunks(rows: Iterable[dict[str, Any]], raw_cells: bool) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer)  # an empty cell for None, as pandas reads it back
    cell = _as_is if raw_cells else safe_cell
    for cells in (
        [*RESULT_COLUMNS],
        *([cell(row[c]) for c in RESULT_COLUMNS] for row in rows),
    ):
        writer.writerow(cells)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()


def _write_parquet(rows: Iterable[dict[str, Any]], out: Path) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise ExportError(PARQUET_NEEDS) from exc
    arrow = {int: pa.int64(), float: pa.float64(), str: pa.string()}
    schema = pa.schema([(column, arrow[COLUMN_TYPES[column]]) for column in RESULT_COLUMNS])
    rows = iter(rows)
    # Written beside ``out`` and renamed over it, as the text formats are: all or nothing.
    fd, name = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    try:
        ordinary_mode(tmp)
        with pq.ParquetWriter(name, schema) as writer:
            while batch := list(islice(rows, _BATCH)):
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
        tmp.replace(out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
