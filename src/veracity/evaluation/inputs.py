"""What ``evaluate`` accepts as samples: a dataset file, or samples and dicts."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from veracity.dataset import RowError, read_dataset
from veracity.dataset.normalize import normalize_row
from veracity.types import Sample

SampleInput = Sample | Mapping[str, Any]


def items_from(
    samples: str | Path | Iterable[SampleInput],
) -> tuple[Iterator[Sample | RowError], str | None]:
    """The samples (and bad rows) to run, and the dataset path if they come from a file."""
    if isinstance(samples, str | Path):
        return iter(read_dataset(samples)), str(samples)

    def from_objects() -> Iterator[Sample | RowError]:
        for index, item in enumerate(samples, start=1):
            if isinstance(item, Sample):
                yield item
                continue
            normalized = normalize_row(item)
            if isinstance(normalized, str):
                yield RowError(path="<samples>", line=None, item=index, message=normalized)
            else:
                yield from normalized

    return from_objects(), None
