"""CSV files: a header row, then one row per sample; ``contexts`` and ``history`` are JSON
array cells (or plain text: one item)."""

from __future__ import annotations

import csv
from collections import deque
from collections.abc import Iterator, Mapping
from pathlib import Path

from veracity.dataset.columns import DEFAULT_COLUMNS, Columns
from veracity.dataset.errors import DatasetError
from veracity.dataset.fields import ANSWERS_FIELD
from veracity.dataset.raw import (
    RawRow,
    decode_error_message,
    json_error_message,
    loads_strict,
    physical_lines,
)

_FIELD_LIMIT = 2**31 - 1
#: Columns whose empty cell is an empty string, not an absent value.
_TEXT_FIELDS = frozenset({"question", "answer"})
#: Columns whose cell holds JSON (an object).
_JSON_FIELDS = frozenset({"metadata", "citations", ANSWERS_FIELD})
#: Columns whose cell holds a JSON array, or plain text that is its one item.
_LIST_FIELDS = frozenset({"contexts", "history"})


class _Lines:
    """Decodes physical lines one by one for ``csv.reader``, remembering undecodable ones.

    An undecodable line is passed on with replacement characters so the CSV parser stays
    in step; the row that contains it is reported as bad.
    """

    def __init__(self, raw_lines: Iterator[tuple[int, bytes]]) -> None:
        self._raw_lines = raw_lines
        self.bad: deque[tuple[int, UnicodeDecodeError]] = deque()

    def __iter__(self) -> Iterator[str]:
        for number, raw in self._raw_lines:
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                self.bad.append((number, exc))
                yield raw.decode("utf-8", "replace")

    def take_bad(self, up_to: int) -> list[tuple[int, UnicodeDecodeError]]:
        """The undecodable lines among the lines read so far (up to line ``up_to``)."""
        taken = []
        while self.bad and self.bad[0][0] <= up_to:
            taken.append(self.bad.popleft())
        return taken


def _list_cell(column: str, cell: str) -> object:
    text = cell.strip()
    if not text:
        return []
    if not text.startswith("["):
        return [cell]
    try:
        return loads_strict(text)
    except ValueError as exc:
        raise ValueError(f"field '{column}' is not a valid JSON array: {_reason(exc)}") from exc
    except RecursionError:
        raise ValueError(f"field '{column}' is not a valid JSON array: nested too deeply") from None


def _json_cell(column: str, cell: str) -> object:
    try:
        return loads_strict(cell)
    except ValueError as exc:
        raise ValueError(f"field '{column}' is not valid JSON: {_reason(exc)}") from exc
    except RecursionError:
        raise ValueError(f"field '{column}' is not valid JSON: nested too deeply") from None


def _reason(exc: ValueError) -> str:
    return json_error_message(exc).removeprefix("invalid JSON: ")


def _row(
    header: list[str | None], cells: list[str], field_of: Mapping[str, str]
) -> dict[str, object]:
    """The row as a dict of JSON-like values; raises ``ValueError`` for a bad cell.

    ``field_of`` says which field a column holds. Cells missing at the end of a short
    row are absent values, even for text fields.
    """
    row: dict[str, object] = {}
    for column, cell in zip(header, cells, strict=False):
        if column is None:
            continue
        canonical = field_of.get(column, column)
        if canonical in _TEXT_FIELDS:
            row[column] = cell
        elif not cell.strip():
            row[column] = None
        elif canonical in _LIST_FIELDS:
            row[column] = _list_cell(column, cell)
        elif canonical in _JSON_FIELDS:
            row[column] = _json_cell(column, cell)
        else:
            row[column] = cell
    return row


def _parsed(
    line: int, header: list[str | None], cells: list[str], field_of: Mapping[str, str]
) -> RawRow:
    try:
        return RawRow(line=line, item=None, value=_row(header, cells, field_of))
    except ValueError as exc:
        return RawRow(line=line, item=None, error=str(exc))


def _header(cells: list[str], name: str) -> list[str | None]:
    """Column names, stripped; an unnamed column (e.g. a pandas index) is ignored."""
    header: list[str | None] = []
    for cell in cells:
        column = cell.strip()
        if column and column in header:
            raise DatasetError(f"{name}: the header names column '{column}' twice")
        header.append(column or None)
    if not any(header):
        raise DatasetError(f"{name}: the header row names no columns")
    return header


def read_csv(  # noqa: PLR0912 - one pass over the rows: header, bad bytes, blank, wide, good
    path: Path, name: str, columns: Columns = DEFAULT_COLUMNS
) -> Iterator[RawRow]:
    """Parse a CSV file row by row; each row's line is the physical line it starts on.

    ``columns`` says which column holds which field (how a cell is read depends on it).
    """
    if csv.field_size_limit() < _FIELD_LIMIT:
        csv.field_size_limit(_FIELD_LIMIT)  # long contexts easily pass the 128 KiB default
    with path.open("rb") as stream:
        lines = _Lines(physical_lines(stream))
        reader = csv.reader(iter(lines))
        header: list[str | None] | None = None
        while True:
            start = reader.line_num + 1
            try:
                cells = next(reader)
            except StopIteration:
                break
            except csv.Error as exc:
                lines.take_bad(reader.line_num)
                if header is None:
                    raise DatasetError(f"{name}:{start}: malformed CSV header: {exc}") from exc
                yield RawRow(line=start, item=None, error=f"malformed CSV: {exc}")
                continue
            bad = lines.take_bad(reader.line_num)
            if header is None:
                if bad:
                    number, decode_exc = bad[0]
                    raise DatasetError(
                        f"{name}:{number}: header: {decode_error_message(decode_exc)}"
                    )
                if any(cell.strip() for cell in cells):
                    header = _header(cells, name)
                continue
            if bad:
                number, decode_exc = bad[0]
                message = decode_error_message(decode_exc, None if number == start else number)
                yield RawRow(line=start, item=None, error=message)
            elif not any(cell.strip() for cell in cells):
                continue  # a blank line, or a row of empty cells from a spreadsheet
            elif len(cells) > len(header):
                yield RawRow(
                    line=start,
                    item=None,
                    error=f"row has {len(cells)} cells but the header has {len(header)} columns",
                )
            else:
                yield _parsed(start, header, cells, columns.field_of)
        if header is None:
            raise DatasetError(f"{name}: the CSV file has no header row")
