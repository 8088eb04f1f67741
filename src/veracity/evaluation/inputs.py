"""What ``evaluate`` accepts as samples: a dataset file, or rows in memory — samples and
dicts, a pandas DataFrame, a Hugging Face ``datasets.Dataset``.

Rows in memory go through the file readers' rules (aliases, ``answers`` per system,
history, duplicates), one row at a time: a table is never copied whole. pandas and
datasets are imported only when the samples are one of theirs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np

from veracity.dataset import RowError, read_dataset
from veracity.dataset.columns import columns_from
from veracity.dataset.raw import RawRow
from veracity.dataset.reader import checked_rows
from veracity.types import Sample

SampleInput = Sample | Mapping[str, Any]
#: A dataset path, or rows in memory: ``SampleInput`` items, a pandas DataFrame or a
#: ``datasets.Dataset`` (iterable too, of other things: they are told apart at run time).
Samples: TypeAlias = str | Path | Iterable[Any]


def items_from(
    samples: Samples, column_map: Mapping[str, str] | None = None
) -> tuple[Iterator[Sample | RowError], str | None]:
    """The samples (and bad rows) to run, and the dataset path if they come from a file.

    Rows in memory follow the rules of a file's rows (a duplicate (id, system) is a bad
    row naming the first one), with their 0-based index in place of a line: ``DataFrame
    row 3`` is ``frame.iloc[3]``. ``column_map`` (field → column) names the columns that
    hold fields under other names than the aliases. Samples of no usable kind raise
    ``TypeError``, a mapping that is not one ``ValueError``, before any row is read.
    """
    if isinstance(samples, str | Path):
        return iter(read_dataset(samples, column_map)), str(samples)
    columns = columns_from(column_map)
    name, rows = _rows_of(samples)
    raw = (RawRow(line=None, item=None, value=value, row=index) for index, value in rows)
    return checked_rows(raw, name, columns), None


def row_count(samples: Samples) -> int | None:
    """How many rows the samples have, when that is known without reading them."""
    if isinstance(samples, str | Path):
        return None
    try:
        return len(samples)  # type: ignore[arg-type]
    except TypeError:  # a generator, an IterableDataset
        return None


def _library(value: object) -> str:
    """The top-level package of a value's type: ``pandas`` for a DataFrame."""
    return type(value).__module__.partition(".")[0]


def _rows_of(samples: object) -> tuple[str, Iterator[tuple[int, object]]]:
    """What the rows are called in messages, and each row (a plain dict, or a Sample)
    with its index."""
    library = _library(samples)
    if library == "pandas":
        return "DataFrame", _frame_rows(samples)
    if library == "datasets" and isinstance(samples, Mapping):
        splits = ", ".join(map(repr, samples))
        raise TypeError(
            f"samples is a {type(samples).__name__} of splits ({splits}): pass one split, "
            "e.g. dataset['test']"
        )
    if isinstance(samples, Mapping):
        raise TypeError("samples is one dict: pass a list of dicts (one per sample)")
    if not isinstance(samples, Iterable):
        raise TypeError(
            f"samples must be a dataset path, a list of dicts or samples, a pandas "
            f"DataFrame or a Hugging Face Dataset, not {type(samples).__name__}"
        )
    name = "Dataset" if library == "datasets" else "samples"
    return name, ((index, _plain(row)) for index, row in enumerate(samples))


def _frame_rows(frame: Any) -> Iterator[tuple[int, object]]:
    """A DataFrame's rows as dicts, one at a time; an empty cell (NaN, None, NA) is an
    absent field, as an empty cell of a CSV file is."""
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise TypeError(
            f"samples is a pandas {type(frame).__name__}: pass a DataFrame (one row per sample)"
        )
    columns = [str(column) for column in frame.columns]
    if len(set(columns)) < len(columns):
        twice = sorted({column for column in columns if columns.count(column) > 1})
        raise ValueError(f"the DataFrame has more than one column named {', '.join(twice)}")
    return (
        (index, {c: _plain(v) for c, v in zip(columns, values, strict=True) if not _empty(v)})
        for index, values in enumerate(frame.itertuples(index=False, name=None))
    )


def _empty(cell: object) -> bool:
    """A missing value of a table cell: None, NaN, or pandas' NA and NaT."""
    if cell is None:
        return True
    if isinstance(cell, float | np.floating):
        return math.isnan(cell)
    return type(cell).__name__ in {"NAType", "NaTType"} and _library(cell) == "pandas"


def _plain(value: object) -> object:
    """A value as a JSON parser would give it: numpy arrays and tuples become lists (a
    column read from Parquet holds arrays), numpy scalars Python ones, mappings dicts."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, str | Sample):
        return value
    if isinstance(value, np.ndarray):
        value = value.tolist()  # Python values; an array of objects keeps its objects
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    return value
