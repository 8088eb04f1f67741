"""``read_dataset``: samples and row errors from a JSONL, JSON or CSV file, lazily."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from veracity.dataset.columns import DEFAULT_COLUMNS, Columns, columns_from
from veracity.dataset.csv_rows import read_csv
from veracity.dataset.errors import DatasetError, RowError
from veracity.dataset.ids import sample_key_digest
from veracity.dataset.json_array import read_json
from veracity.dataset.jsonl import read_jsonl
from veracity.dataset.normalize import normalize_row
from veracity.dataset.raw import RawRow
from veracity.dataset.shapes import FIRST_ROWS, row_shape
from veracity.types.sample import Sample

# Each reader gets the file, its name for messages, and which column holds which field.
_FORMATS: dict[str, Callable[[Path, str, Columns], Iterator[RawRow]]] = {
    ".jsonl": lambda path, _name, _columns: read_jsonl(path),
    ".ndjson": lambda path, _name, _columns: read_jsonl(path),
    ".json": lambda path, name, _columns: read_json(path, name),
    ".csv": read_csv,
}


def _position(row: RawRow) -> tuple[str, int]:
    """What a row's position is called, and the position."""
    if row.line is not None:
        return "line", row.line
    if row.item is not None:
        return "item", row.item
    assert row.row is not None
    return "row", row.row


def _guarded(raw_rows: Iterator[RawRow], name: str) -> Iterator[RawRow]:
    """The rows, with an I/O failure (e.g. permission denied) turned into ``DatasetError``."""
    while True:
        try:
            row = next(raw_rows)
        except StopIteration:
            return
        except OSError as exc:
            raise DatasetError(f"{name}: cannot read the file: {exc.strerror or exc}") from exc
        yield row


def checked_rows(
    raw_rows: Iterator[RawRow], name: str, columns: Columns = DEFAULT_COLUMNS
) -> Iterator[Sample | RowError]:
    """The samples of ``raw_rows``, and a ``RowError`` (under ``name``) per bad or duplicate row.

    Files and samples in memory go through here alike, so they follow the same rules.
    ``columns`` says which column holds which field.
    """
    # (id, system) of every sample so far, as 8-byte digests -> the position it was at.
    seen: dict[int, int] = {}
    for row in _of_samples(raw_rows, name, columns):
        result = row.error if row.error is not None else normalize_row(row.value, columns)
        if isinstance(result, str):
            yield RowError(name, row.line, row.item, result, row.row)
            continue
        unit, position = _position(row)
        duplicates = []
        for sample in result:
            key = sample_key_digest(sample.id, sample.system)
            first = seen.setdefault(key, position)
            if first == position:
                yield sample
            else:
                system = "" if sample.system is None else f", system {sample.system!r}"
                duplicates.append(f"(id {sample.id!r}{system}) first seen at {unit} {first}")
        if duplicates:
            message = "duplicate sample " + "; ".join(duplicates)
            yield RowError(name, row.line, row.item, message, row.row)


def _of_samples(raw_rows: Iterator[RawRow], name: str, columns: Columns) -> Iterator[RawRow]:
    """``raw_rows``, unless its first rows all look like something other than samples (OTLP
    traces, a chat log): then a ``DatasetError`` naming what the file looks like and what
    reads it, rather than the same bad row over and over. Rows stay lazy: only rows of
    another shape wait, and only until a row that is not, or the first few, decide."""
    held: list[RawRow] = []
    shapes: set[str] = set()
    for row in raw_rows:
        shape = row_shape(row.value, columns) if row.error is None else None
        if shape is None:
            yield from held
            yield row
            yield from raw_rows
            return
        held.append(row)
        shapes.add(shape)
        if len(held) == FIRST_ROWS:
            break
    if len(shapes) == 1:
        raise DatasetError(f"{name}: {shapes.pop()}")
    yield from held
    yield from raw_rows


def read_dataset(
    path: str | Path, column_map: Mapping[str, str] | None = None
) -> Iterator[Sample | RowError]:
    """Yield the samples of a dataset file, and a ``RowError`` in place of each bad row.

    The format comes from the extension: ``.jsonl``/``.ndjson``, ``.json`` (an array, or an
    object with a ``samples`` array) or ``.csv`` (any case). Rows are read one at a time,
    in file order. ``column_map`` (field → column, e.g. ``{"question": "query"}``) names
    the columns that hold fields under other names than the accepted aliases; a mapping
    that is not one raises ``ValueError``. A missing file or an unknown extension raises
    ``DatasetError`` at once; a file whose content is unusable as a whole (not a JSON
    array or ``samples`` object, malformed JSON, a CSV without a header) raises
    ``DatasetError`` while iterating.
    """
    columns = columns_from(column_map)
    return checked_rows(file_rows(path, columns), str(path), columns)


def file_rows(
    path: str | Path, columns: Columns = DEFAULT_COLUMNS, *, kind: str = "dataset"
) -> Iterator[RawRow]:
    """The rows of a JSONL, JSON or CSV file (by its extension), an I/O failure raised as
    ``DatasetError``; a missing file or an unknown extension (of a ``kind`` file) raises
    at once."""
    name = str(path)
    file = Path(path)
    reader = _FORMATS.get(file.suffix.lower())
    if reader is None:
        known = ", ".join(_FORMATS)
        raise DatasetError(f"{name}: unknown {kind} format {file.suffix!r} (expected {known})")
    if not file.is_file():
        problem = "is not a file" if file.exists() else "does not exist"
        raise DatasetError(f"{name}: the {kind} file {problem}")
    return _guarded(reader(file, name, columns), name)
