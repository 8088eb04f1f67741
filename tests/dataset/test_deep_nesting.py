"""A JSONL row nested deeper than the JSON parser recurses is a bad row naming its line,
and the rows around it still load (it used to end the whole read with a RecursionError)."""

from __future__ import annotations

import json
from pathlib import Path

from veracity.dataset import RowError, read_dataset
from veracity.types import Sample


def test_a_row_nested_too_deeply_is_a_bad_row(tmp_path: Path) -> None:
    good = {"id": "a", "question": "q", "contexts": ["c"], "answer": "x"}
    deep = (
        '{"id": "b", "question": "q", "answer": "x", "metadata": ' + "[" * 5000 + "]" * 5000 + "}"
    )
    path = tmp_path / "data.jsonl"
    path.write_text(f"{json.dumps(good)}\n{deep}\n{json.dumps(good | {'id': 'c'})}\n")
    rows = list(read_dataset(path))
    assert [r.id for r in rows if isinstance(r, Sample)] == ["a", "c"]
    [bad] = [r for r in rows if isinstance(r, RowError)]
    assert bad.line == 2
    assert "nested too deeply" in bad.message
