"""Helpers for the labels tests: write a labels file to tmp_path."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

WriteFile = Callable[[str, str | bytes], Path]
WriteRows = Callable[..., Path]


@pytest.fixture
def write_file(tmp_path: Path) -> WriteFile:
    """Write text (UTF-8) or bytes to ``tmp_path / name`` and return the path."""

    def write(name: str, content: str | bytes) -> Path:
        path = tmp_path / name
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        return path

    return write


@pytest.fixture
def write_jsonl(write_file: WriteFile) -> WriteRows:
    """Write rows (any JSON values) one per line as ``labels.jsonl`` (or ``name``)."""

    def write(*rows: object, name: str = "labels.jsonl") -> Path:
        return write_file(name, "".join(json.dumps(row) + "\n" for row in rows))

    return write
