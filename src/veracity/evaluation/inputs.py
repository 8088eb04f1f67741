"""What ``evaluate`` accepts as samples: a dataset file, or samples and dicts."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from veracity.dataset import RowError, read_dataset
from veracity.dataset.raw import RawRow
from veracity.dataset.reader import checked_rows
from veracity.types import Sample

SampleInput = Sample | Mapping[str, Any]


def items_from(
    samples: str | Path | Iterable[SampleInput],
) -> tuple[Iterator[Sample | RowError], str | None]:
    """The samples (and bad rows) to run, and the dataset path if they come from a file.

    Samples in memory follow the rules of a file's rows (a duplicate (id, system) is a bad
    row naming the first one), with their 1-based position in place of a line.
    """
    if isinstance(samples, str | Path):
        return iter(read_dataset(samples)), str(samples)
    rows = (
        RawRow(line=None, item=index, value=_plain(item))
        for index, item in enumerate(samples, start=1)
    )
    return checked_rows(rows, "<samples>"), None


def _plain(item: object) -> object:
    # A mapping that is not a dict (e.g. a Hugging Face row) reads like a JSON object.
    if isinstance(item, Mapping) and not isinstance(item, dict):
        return dict(item)
    return item
