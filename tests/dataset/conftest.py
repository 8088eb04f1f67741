"""Helpers for the dataset reader tests: write a file to tmp_path and read it back."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from veracity.dataset import RowError, read_dataset
from veracity.types import Sample

WriteFile = Callable[[str, str | bytes], Path]
ReadAll = Callable[[Path], tuple[list[Sample], list[RowError]]]


@pytest.fixture
def write_file(tmp_path: Path) -> WriteFile:
    """Write text (UTF-8) or bytes to ``tmp_path / name`` and return the path."""

    def write(name: str, content: str | bytes) -> Path:
        path = tmp_path / name
        data = content.encode() if isinstance(content, str) else content
        path.write_bytes(data)
        return path

    return write


@pytest.fixture
def write_jsonl(write_file: WriteFile) -> Callable[..., Path]:
    """Write rows (any JSON values) as ``data.jsonl``, one per line, and return the path."""

    def write(*rows: object, name: str = "data.jsonl") -> Path:
        return write_file(name, "".join(json.dumps(row) + "\n" for row in rows))

    return write


@pytest.fixture
def read_all() -> ReadAll:
    """Read a whole dataset, split into samples and row errors (order kept within each)."""

    def read(path: Path) -> tuple[list[Sample], list[RowError]]:
        samples: list[Sample] = []
        errors: list[RowError] = []
        for entry in read_dataset(path):
            if isinstance(entry, RowError):
                errors.append(entry)
            else:
                samples.append(entry)
        return samples, errors

    return read
