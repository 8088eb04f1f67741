"""Where label rows come from: JSONL, JSON and CSV files, rows in memory, a DataFrame, or
samples. Each gives ``RawRow``s, located as the dataset reader locates them."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Final

import numpy as np

from veracity.dataset.columns import Columns
from veracity.dataset.csv_rows import read_csv
from veracity.dataset.errors import DatasetError
from veracity.dataset.fields import ANSWERS_FIELD, FIELD_OF
from veracity.dataset.json_array import read_json
from veracity.dataset.jsonl import read_jsonl
from veracity.dataset.raw import RawRow, json_error_message, loads_strict
from veracity.labels.model import LabelError
from veracity.labels.names import DATASET_FIELDS, ID_FIELDS, SYSTEM_FIELD
from veracity.types.sample import Sample

#: Columns the CSV reader would parse as JSON, kept as raw cells: a label does not
#: depend on them, and a bad one must not cost the label (nor a too-deep one the file).
_RAW_CELLS: Final = Columns(
    field_of={
        name: "cell"
        for name, canonical in {**FIELD_OF, ANSWERS_FIELD: ANSWERS_FIELD}.items()
        if canonical in ("contexts", "history", "metadata", ANSWERS_FIELD)
    }
)


def csv_dataset_view(row: dict[str, object]) -> dict[str, object] | str:
    """A CSV row as the dataset reader sees it (JSON cells parsed), to hash an id from."""
    view = dict(row)
    for name, cell in row.items():
        canonical = FIELD_OF.get(name, name)
        if not isinstance(cell, str):
            continue
        listed = canonical in ("contexts", "history")
        if (listed and cell.strip().startswith("[")) or canonical in ("metadata", ANSWERS_FIELD):
            try:
                view[name] = loads_strict(cell)
            except ValueError as exc:
                return f"field {name!r}: {json_error_message(exc)}"
            except RecursionError:
                return f"field {name!r}: invalid JSON: nested too deeply"
        elif listed:
            view[name] = [cell]
    return view


_FILES: Final[dict[str, Callable[[Path, str], Iterator[RawRow]]]] = {
    ".jsonl": lambda path, _name: read_jsonl(path),
    ".ndjson": lambda path, _name: read_jsonl(path),
    ".json": lambda path, name: read_json(path, name, arrays=("labels", "samples")),
    ".csv": lambda path, name: read_csv(path, name, _RAW_CELLS),
}


def file_rows(path: Path, name: str) -> Iterator[RawRow]:
    """The rows of a labels file; a missing file or an unknown extension raises at once
    (a missing one first: ``labels`` without its extension is most likely a typo)."""
    if not path.is_file():
        problem = (
            "is a directory, not a file"
            if path.is_dir()
            # A pipe or a device (/dev/zero) could be endless: labels are read from files.
            else "is not a regular file (a pipe or a device)"
            if path.exists()
            else "not found"
        )
        raise LabelError(f"{name}: labels file {problem}")
    reader = _FILES.get(path.suffix.lower())
    if reader is None:
        raise LabelError(
            f"{name}: unknown labels format {path.suffix!r} (expected {', '.join(_FILES)})"
        )
    return _guarded(reader(path, name), name)


def _guarded(rows: Iterator[RawRow], name: str) -> Iterator[RawRow]:
    """The rows, with the dataset reader's whole-file errors and I/O failures as
    ``LabelError``."""
    while True:
        try:
            row = next(rows)
        except StopIteration:
            return
        except DatasetError as exc:
            raise LabelError(str(exc)) from exc
        except OSError as exc:
            raise LabelError(f"{name}: cannot read the file: {exc.strerror or exc}") from exc
        yield row


def _plain(value: object) -> object:
    """A numpy scalar as the Python value; other values as they are (only the top level
    of a row matters to labels, so nothing is walked into)."""
    return value.item() if isinstance(value, np.generic) else value


def _empty(cell: object) -> bool:
    """A table's missing cell: None, NaN, or pandas' NA and NaT."""
    if cell is None:
        return True
    if isinstance(cell, float):
        return math.isnan(cell)  # numpy's NaN is a float once plain
    return type(cell).__name__ in {"NAType", "NaTType"}


def sample_row(sample: Sample) -> dict[str, object]:
    """What a sample gives labels: its metadata (where a dataset's ``label`` and
    ``human_<target>`` fields went), its id and system."""
    skipped = {*ID_FIELDS, SYSTEM_FIELD, *DATASET_FIELDS}
    row: dict[str, object] = {k: v for k, v in sample.metadata.items() if k not in skipped}
    row.update(id=sample.id, system=sample.system, question=sample.question)
    return row


def memory_rows(rows: Iterable[object]) -> Iterator[RawRow]:
    """Rows in memory (dicts or samples), located by their 0-based index."""
    for index, row in enumerate(rows):
        if isinstance(row, Sample):
            value: object = sample_row(row)
        elif isinstance(row, Mapping):
            value = {str(key): _plain(cell) for key, cell in row.items()}
        else:
            value = row
        yield RawRow(line=None, item=None, value=value, row=index)


def frame_rows(frame: Any) -> Iterator[RawRow]:
    """A DataFrame's rows, one at a time; an empty cell is no value, as in a CSV file."""
    columns = [str(column) for column in frame.columns]
    if len(set(columns)) < len(columns):
        twice = sorted({column for column in columns if columns.count(column) > 1})
        raise LabelError(f"the DataFrame has more than one column named {', '.join(twice)}")
    for index, values in enumerate(frame.itertuples(index=False, name=None)):
        cells = (_plain(v) for v in values)
        row = {c: v for c, v in zip(columns, cells, strict=True) if not _empty(v)}
        yield RawRow(line=None, item=None, value=row, row=index)
