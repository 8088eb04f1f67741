"""Stable ids, ``answers`` expansion, duplicates, fingerprints and the error types."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import ValidationError

from veracity.dataset import (
    DatasetError,
    RowError,
    dataset_fingerprint,
    read_dataset,
    stable_sample_id,
)
from veracity.dataset.ids import dataset_identity, grew_by_appending
from veracity.dataset.normalize import describe_validation_error
from veracity.types import Sample

Read = Callable[[Path], tuple[list[Sample], list[RowError]]]
WriteRows = Callable[..., Path]
WriteFile = Callable[[str, str | bytes], Path]


def test_stable_id_is_deterministic_and_content_sensitive() -> None:
    base = stable_sample_id("q", "a", ["c1", "c2"], None)
    assert base == stable_sample_id("q", "a", ("c1", "c2"), None)
    assert len(base) == 16
    int(base, 16)
    variants = {
        stable_sample_id("q", "a", ["c1", "c2"], "sysA"),
        stable_sample_id("q", "a", ["c1", "c2"], "sysB"),
        stable_sample_id("q", "a", ["c2", "c1"], None),
        stable_sample_id("q", "b", ["c1", "c2"], None),
        stable_sample_id("q2", "a", ["c1", "c2"], None),
        stable_sample_id("q", "a", ["c1c2"], None),
        stable_sample_id("q", "a", ["c1", "c2"], ""),
    }
    assert base not in variants
    assert len(variants) == 7


def test_stable_id_is_pinned() -> None:
    # The id must not change between versions, or resumed runs would lose their results.
    canonical = '{"answer":"a","contexts":["c"],"question":"q","system":null}'
    expected = hashlib.sha256(canonical.encode()).hexdigest()[:16]
    assert stable_sample_id("q", "a", ["c"], None) == expected


def test_missing_id_uses_the_stable_hash(write_jsonl: WriteRows, read_all: Read) -> None:
    row = {"question": "q", "answer": "a", "contexts": ["c"], "system": "s"}
    first, _ = read_all(write_jsonl(row, name="one.jsonl"))
    again, _ = read_all(write_jsonl(row, name="two.jsonl"))
    assert first[0].id == again[0].id == stable_sample_id("q", "a", ["c"], "s")


def test_answers_expand_one_sample_per_system(write_jsonl: WriteRows, read_all: Read) -> None:
    row = {
        "id": "q1",
        "question": "q",
        "contexts": ["c"],
        "answers": {"bm25": "A1", "dense": "A2"},
        "reference": "r",
        "metadata": {"k": 1},
    }
    samples, errors = read_all(write_jsonl(row))
    assert errors == []
    assert [(s.id, s.system, s.answer) for s in samples] == [
        ("q1", "bm25", "A1"),
        ("q1", "dense", "A2"),
    ]
    assert all(s.reference == "r" and s.metadata == {"k": 1} for s in samples)
    assert samples[0].metadata is not samples[1].metadata


def test_answers_without_id_hash_each_system(write_jsonl: WriteRows, read_all: Read) -> None:
    row = {"question": "q", "contexts": ["c"], "answers": {"A": "x", "B": "x"}}
    samples, errors = read_all(write_jsonl(row))
    assert errors == []
    assert [s.id for s in samples] == [
        stable_sample_id("q", "x", ["c"], "A"),
        stable_sample_id("q", "x", ["c"], "B"),
    ]
    assert samples[0].id != samples[1].id


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"answer": "a", "answers": {"A": "x"}}, "row has both 'answer' and 'answers'"),
        ({"response": "a", "answers": {"A": "x"}}, "row has both 'response' and 'answers'"),
        ({"system": "S", "answers": {"A": "x"}}, "row has both 'system' and 'answers'"),
        ({"answers": {}}, "field 'answers' is empty"),
        ({"answers": ["x"]}, "field 'answers' must be an object {system: answer}, got an array"),
        (
            {"answers": {"A": 1}},
            "field 'answers' answer of system 'A' must be a string, got a number",
        ),
        ({"answers": {"": "x"}}, "field 'answers' has an empty system name"),
    ],
)
def test_bad_answers(
    write_jsonl: WriteRows, read_all: Read, row: dict[str, object], message: str
) -> None:
    path = write_jsonl({"question": "q"} | row)
    samples, errors = read_all(path)
    assert samples == []
    assert [str(e) for e in errors] == [f"{path}:1: {message}"]


def test_duplicates_in_jsonl_name_the_first_line(write_jsonl: WriteRows, read_all: Read) -> None:
    rows = [
        {"id": "1", "question": "q", "answer": "a", "system": "A"},
        {"id": "1", "question": "q", "answer": "a", "system": "B"},
        {"id": 1, "question": "other", "answer": "b", "system": "A"},
        {"question": "same", "answer": "same"},
        {"question": "same", "answer": "same"},
    ]
    path = write_jsonl(*rows)
    samples, errors = read_all(path)
    assert [(s.id, s.system) for s in samples][:2] == [("1", "A"), ("1", "B")]
    assert len(samples) == 3
    hashed = stable_sample_id("same", "same", [], None)
    assert [str(e) for e in errors] == [
        f"{path}:3: duplicate sample (id '1', system 'A') first seen at line 1",
        f"{path}:5: duplicate sample (id '{hashed}') first seen at line 4",
    ]


def test_duplicates_in_json_name_the_first_item(write_file: WriteFile, read_all: Read) -> None:
    rows = [
        {"id": "x", "question": "q", "answers": {"A": "1", "B": "2"}},
        {"id": "y", "question": "q", "answer": "3"},
        {"id": "x", "question": "q", "answers": {"B": "2", "C": "3"}},
    ]
    path = write_file("data.json", json.dumps(rows))
    samples, errors = read_all(path)
    assert [(s.id, s.system) for s in samples] == [("x", "A"), ("x", "B"), ("y", None), ("x", "C")]
    assert [str(e) for e in errors] == [
        f"{path} item 3: duplicate sample (id 'x', system 'B') first seen at item 1"
    ]


def test_the_same_id_in_two_files_is_not_a_duplicate(
    write_jsonl: WriteRows, read_all: Read
) -> None:
    row = {"id": "1", "question": "q", "answer": "a"}
    assert read_all(write_jsonl(row, name="a.jsonl"))[1] == []
    assert read_all(write_jsonl(row, name="b.jsonl"))[1] == []


def test_fingerprint_is_sha256_of_the_bytes(write_file: WriteFile) -> None:
    data = b"".join(b'{"question": "q%d", "answer": "a"}\n' % i for i in range(50_000))
    path = write_file("data.jsonl", data)
    assert len(data) > 1 << 20  # more than one chunk
    assert dataset_fingerprint(path) == hashlib.sha256(data).hexdigest()
    assert dataset_fingerprint(str(path)) == dataset_fingerprint(path)


def test_a_dataset_grown_by_whole_rows_is_told_from_a_changed_one(
    write_file: WriteFile, tmp_path: Path
) -> None:
    rows = b"".join(b'{"question": "q%d", "answer": "a"}\n' % i for i in range(30_000))
    path = write_file("data.jsonl", rows)
    sha256, size = dataset_identity(path)
    assert (sha256, size) == (hashlib.sha256(rows).hexdigest(), len(rows))
    assert dataset_identity(path, first=10) == (hashlib.sha256(rows[:10]).hexdigest(), 10)
    assert grew_by_appending(path, sha256, size)  # unchanged
    path.write_bytes(rows + b'{"question": "new", "answer": "a"}\n')
    assert grew_by_appending(path, sha256, size)
    path.write_bytes(b" " + rows)
    assert not grew_by_appending(path, sha256, size)
    path.write_bytes(rows[: size // 2])  # cut short
    assert not grew_by_appending(path, sha256, size)
    assert not grew_by_appending(tmp_path / "gone.jsonl", sha256, size)
    # Bytes after a row cut mid-line change that row: not an append.
    path.write_bytes(rows[:-1])
    half_sha, half = dataset_identity(path)
    path.write_bytes(rows[:-1] + b', "x": 1}\n')
    assert not grew_by_appending(path, half_sha, half)
    assert grew_by_appending(path, hashlib.sha256(b"").hexdigest(), 0)  # from an empty file


def test_fingerprint_of_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="cannot read the file"):
        dataset_fingerprint(tmp_path / "nope.jsonl")


def test_row_error_str() -> None:
    assert str(RowError("data.jsonl", 17, None, "missing required field 'answer'")) == (
        "data.jsonl:17: missing required field 'answer'"
    )
    assert str(RowError("data.json", None, 4, "boom")) == "data.json item 4: boom"
    assert str(RowError("data.json", None, None, "boom")) == "data.json: boom"


def test_row_error_is_frozen() -> None:
    error = RowError("data.jsonl", 1, None, "x")
    with pytest.raises(AttributeError):
        error.line = 2  # type: ignore[misc]
    assert error == RowError("data.jsonl", 1, None, "x")


def test_missing_file_and_unknown_extension_fail_at_once(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="does not exist") as info:
        read_dataset(tmp_path / "missing.jsonl")
    assert "missing.jsonl" in str(info.value)
    (tmp_path / "data.txt").write_text("question,answer\n")
    with pytest.raises(DatasetError, match=r"unknown dataset format '\.txt'"):
        read_dataset(tmp_path / "data.txt")
    with pytest.raises(DatasetError, match="unknown dataset format ''"):
        read_dataset(tmp_path / "noext")
    (tmp_path / "dir.jsonl").mkdir()
    with pytest.raises(DatasetError, match="is not a file"):
        read_dataset(tmp_path / "dir.jsonl")


def test_validation_errors_are_summarised() -> None:
    with pytest.raises(ValidationError) as info:
        Sample(id="", question="q", answer="a")
    message = describe_validation_error(info.value)
    assert message.startswith("field 'id': String should have at least 1 character")
    assert "pydantic" not in message
    assert "\n" not in message


def test_stable_id_handles_any_text() -> None:
    ids = {
        stable_sample_id("qué?", "été", ["日本語"], "sýs"),
        stable_sample_id("\ud800", "a", [], None),  # a lone surrogate, as JSON "\ud800" gives
        stable_sample_id("q\u00e9", "a", [], None),
        stable_sample_id("qe\u0301", "a", [], None),  # not normalised: different bytes
    }
    assert len(ids) == 4
    assert all(len(i) == 16 for i in ids)
