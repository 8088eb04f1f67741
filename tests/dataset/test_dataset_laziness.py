"""Reading is lazy: the first sample of a big file arrives without reading the whole file."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from veracity.dataset import read_dataset
from veracity.types import Sample

WriteFile = Callable[[str, str | bytes], Path]
ROWS = 200_000


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[io.BufferedReader]:
    """Every file the reader opens, so a test can see how far into it the reader got."""
    files: list[io.BufferedReader] = []
    real_open = Path.open

    def spy(self: Path, *args: Any, **kwargs: Any) -> Any:
        handle = real_open(self, *args, **kwargs)
        if isinstance(handle, io.BufferedReader):  # not the test writing its file
            files.append(handle)
        return handle

    monkeypatch.setattr(Path, "open", spy)
    return files


def _rows(n: int = ROWS) -> list[dict[str, object]]:
    return [
        {"id": str(i), "question": f"question {i}?", "answer": "an answer", "contexts": ["c"]}
        for i in range(n)
    ]


def _assert_read_only_a_little(
    path: Path, opened: list[io.BufferedReader], first_question: str
) -> None:
    size = path.stat().st_size
    entries = read_dataset(path)
    assert opened == []  # nothing is read before the first item is asked for
    first = next(entries)
    assert isinstance(first, Sample)
    assert first.question == first_question
    (handle,) = opened
    consumed = handle.raw.tell()  # bytes actually read from the OS, buffers included
    assert 0 < consumed <= 256 * 1024 < size // 20
    second = next(entries)
    assert isinstance(second, Sample)
    assert second.id == "1"
    entries.close()  # type: ignore[attr-defined]
    assert handle.closed


def test_jsonl_is_read_line_by_line(write_file: WriteFile, opened: list[io.BufferedReader]) -> None:
    text = "".join(json.dumps(row) + "\n" for row in _rows())
    _assert_read_only_a_little(write_file("big.jsonl", text), opened, "question 0?")


def test_json_is_streamed(write_file: WriteFile, opened: list[io.BufferedReader]) -> None:
    text = json.dumps({"samples": _rows()})
    _assert_read_only_a_little(write_file("big.json", text), opened, "question 0?")


def test_csv_is_read_row_by_row(write_file: WriteFile, opened: list[io.BufferedReader]) -> None:
    lines = ["id,question,contexts,answer\n"]
    lines += [f'{i},question {i}?,"[""c""]",an answer\n' for i in range(ROWS)]
    _assert_read_only_a_little(write_file("big.csv", "".join(lines)), opened, "question 0?")


def test_whole_big_jsonl_reads_to_the_end(write_file: WriteFile) -> None:
    rows = 20_000  # 1.6 MB: many times the reader's buffer, every boundary crossed
    text = "".join(json.dumps(row) + "\n" for row in _rows(rows))
    ids = [
        entry.id
        for entry in read_dataset(write_file("big.jsonl", text))
        if isinstance(entry, Sample)
    ]
    assert ids == [str(i) for i in range(rows)]
