"""run.json through one typed model: checked when written, read back leniently, its
unknown fields kept, and run directories of earlier versions still read."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from pydantic import ValidationError

from tests.report.factory import rec
from veracity.store import RunDirectory, RunFileWarning, read_manifest
from veracity.store.manifest import Manifest, checked_manifest

STARTED: dict[str, object] = {
    "dataset": {"path": "d.jsonl", "sha256": "x"},
    "judge": {"name": "offline", "prompts": {}, "later_field": [1, 2]},
    "metrics": ["faithfulness"],
    "settings": {"iterations": 1},
    "a_field_of_a_later_version": {"kept": True},
}


def test_a_run_writes_a_manifest_the_model_reads_back_whole(tmp_path: Path) -> None:
    store = RunDirectory(tmp_path)
    store.open(STARTED)
    store.add(rec(1.0, sample_id="a"), 0)
    store.export({"metrics": {}}, status="completed", finished_at="2026-01-01T00:00:00")
    store.close()
    written = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    manifest = read_manifest(tmp_path / "run.json")
    assert manifest.as_dict() == written  # nothing lost, nothing added
    assert (manifest.status, manifest.dataset.sha256, manifest.judge.name) == (
        "completed",
        "x",
        "offline",
    )
    assert manifest.last_attempt is not None and manifest.last_attempt.results_new == 1
    assert manifest.as_dict()["a_field_of_a_later_version"] == {"kept": True}


def test_a_manifest_of_a_version_before_attempts_reads(tmp_path: Path) -> None:
    older = {"status": "completed", "metrics": ["faithfulness"], "resumed_results": 0}
    (tmp_path / "run.json").write_text(json.dumps(older), encoding="utf-8")
    manifest = read_manifest(tmp_path / "run.json")
    assert (manifest.status, manifest.attempts, manifest.bad_rows) == ("completed", [], 0)


@pytest.mark.parametrize(
    ("field", "value"),
    [("bad_rows", True), ("bad_rows", "3"), ("attempts", [{"results_new": "x"}]),
     ("judge", {"prompts": {"a": 1}}), ("metrics", "faithfulness"), ("settings", None)],
)  # fmt: skip
def test_a_field_of_a_wrong_type_is_left_out_and_named(
    tmp_path: Path, field: str, value: object
) -> None:
    path = tmp_path / f"{field}-{type(value).__name__}" / "run.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"status": "failed", field: value}), encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        manifest = read_manifest(path)
    assert manifest.status == "failed"  # the rest is read
    assert field not in manifest.as_dict()
    messages = [str(w.message) for w in caught if issubclass(w.category, RunFileWarning)]
    assert messages == [f"{path}: ignored field(s) of a wrong type: {field}"]


def test_what_is_not_a_manifest_reads_as_an_empty_one(tmp_path: Path) -> None:
    for text in ("", "[1, 2]", "{not json", "\x00\x01"):
        (tmp_path / "run.json").write_text(text, encoding="utf-8")
        assert read_manifest(tmp_path / "run.json") == Manifest()
    assert read_manifest(tmp_path / "missing.json") == Manifest()


def test_a_writer_that_would_write_a_wrong_manifest_fails_rather_than_write_it() -> None:
    assert checked_manifest({"bad_rows": 2}) == {"bad_rows": 2}
    with pytest.raises(ValidationError):
        checked_manifest({"bad_rows": "two"})
