"""The fields ``veracity label`` writes: ``order`` (how the item was chosen) and ``retract``
(an undo): the last word of each annotator on each item is what is read."""

from __future__ import annotations

import json
from pathlib import Path

from veracity.labels import read_labels


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _row(sample: str, value: int, annotator: str = "ann", **extra: object) -> dict[str, object]:
    return {"id": sample, "system": None, "metric": "faithfulness", "value": value,
            "annotator": annotator, "note": "", "timestamp": "2026-01-01T00:00:00Z",
            "order": "random", **extra}  # fmt: skip


def test_a_retraction_withdraws_the_label_and_a_new_one_replaces_it(tmp_path: Path) -> None:
    retract = {"id": "a", "metric": "faithfulness", "annotator": "ann", "retract": True}
    labels = read_labels(
        _write(tmp_path / "l.jsonl", [_row("a", 1), _row("b", 0), retract, _row("a", 0)])
    )
    assert not labels.bad_rows
    assert {(item.sample_id, item.value) for item in labels.items} == {("a", 0.0), ("b", 0.0)}
    assert labels.ignored == {}


def test_a_retraction_alone_leaves_the_item_unlabelled(tmp_path: Path) -> None:
    retract = {"id": "a", "metric": "faithfulness", "annotator": "ann", "retract": True}
    labels = read_labels(_write(tmp_path / "l.jsonl", [_row("a", 1), _row("b", 1), retract]))
    assert [item.sample_id for item in labels.items] == ["b"]


def test_another_annotators_label_is_not_withdrawn(tmp_path: Path) -> None:
    retract = {"id": "a", "metric": "faithfulness", "annotator": "bo", "retract": True}
    rows = [_row("a", 1), _row("a", 0, "bo"), retract, _row("b", 1)]
    labels = read_labels(_write(tmp_path / "l.jsonl", rows))
    (item, _b) = labels.items
    assert item.votes == (("ann", 1.0),)


def test_retracting_nothing_is_a_bad_row(tmp_path: Path) -> None:
    retract = {"id": "a", "metric": "faithfulness", "annotator": "ann", "retract": True}
    labels = read_labels(_write(tmp_path / "l.jsonl", [retract, _row("b", 1)]))
    assert "retraction of no earlier label" in labels.bad_rows[0].message


def test_orders_other_than_random_are_counted(tmp_path: Path) -> None:
    rows = [_row("a", 1), _row("b", 0, order="uncertain"), _row("c", 1, order="uncertain")]
    labels = read_labels(_write(tmp_path / "l.jsonl", rows))
    assert labels.non_random_orders() == {"uncertain": 2}
    assert labels.ignored == {}
