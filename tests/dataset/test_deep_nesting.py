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


def test_a_csv_cell_nested_too_deeply_is_a_bad_row(tmp_path: Path) -> None:
    deep = "[" * 5000 + "]" * 5000
    path = tmp_path / "data.csv"
    path.write_text(
        f'id,question,contexts,answer\na,q,"[""c""]",x\nb,q,"{deep}",x\nc,q,"[""c""]",x\n'
    )
    rows = list(read_dataset(path))
    assert [r.id for r in rows if isinstance(r, Sample)] == ["a", "c"]
    [bad] = [r for r in rows if isinstance(r, RowError)]
    assert bad.line == 3 and "nested too deeply" in bad.message


def test_a_json_row_100000_levels_deep_is_a_bad_row_read_in_flat_memory(tmp_path: Path) -> None:
    row = {"id": "a", "question": "q", "contexts": ["c"], "answer": "x"}
    good, other = json.dumps(row), json.dumps(row | {"id": "c"})
    depth = 100_000
    deep = '{"id": "b", "question": "q", "answer": "x", "metadata": ' + "[" * depth
    deep += "]" * depth + "}"
    path = tmp_path / "data.json"
    path.write_text(f"[{good}, {deep}, {other}]")
    rows = list(read_dataset(path))
    assert [r.id for r in rows if isinstance(r, Sample)] == ["a", "c"]
    [bad] = [r for r in rows if isinstance(r, RowError)]
    assert bad.item == 2 and "nested more than 1000 levels deep" in bad.message
