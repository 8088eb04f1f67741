"""JSON files: an array or a ``samples`` object; whole-file problems raise DatasetError."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from veracity.dataset import DatasetError, RowError, read_dataset
from veracity.types import Sample

Read = Callable[[Path], tuple[list[Sample], list[RowError]]]
WriteFile = Callable[[str, str | bytes], Path]

ROWS = [
    {"id": "1", "question": "q1", "answer": "a1", "contexts": ["c"]},
    {"user_input": "q2", "response": "a2", "retrieved_contexts": ["c", "d"], "extra": [1, 2.5]},
]


def test_top_level_array(write_file: WriteFile, read_all: Read) -> None:
    samples, errors = read_all(write_file("data.json", json.dumps(ROWS, indent=2)))
    assert errors == []
    assert [s.question for s in samples] == ["q1", "q2"]
    assert samples[1].contexts == ("c", "d")
    assert samples[1].metadata == {"extra": [1, 2.5]}
    assert isinstance(samples[1].metadata["extra"][1], float)


def test_object_with_samples_array(write_file: WriteFile, read_all: Read) -> None:
    document = {"version": 2, "name": {"samples": "ignored"}, "samples": ROWS, "after": [{}]}
    samples, errors = read_all(write_file("data.json", json.dumps(document)))
    assert errors == []
    assert [s.answer for s in samples] == ["a1", "a2"]


def test_array_and_object_forms_give_the_same_samples(
    write_file: WriteFile, read_all: Read
) -> None:
    as_array = read_all(write_file("a.json", json.dumps(ROWS)))
    as_object = read_all(write_file("b.json", json.dumps({"samples": ROWS})))
    assert as_array == as_object


def test_bad_items_name_their_item_number(write_file: WriteFile, read_all: Read) -> None:
    rows = [ROWS[0], 42, {"question": "q"}, [1], ROWS[1], {"question": "q", "answer": 1}]
    path = write_file("data.json", json.dumps({"samples": rows}))
    samples, errors = read_all(path)
    assert [s.question for s in samples] == ["q1", "q2"]
    assert [str(e) for e in errors] == [
        f"{path} item 2: expected a JSON object, got a number",
        f"{path} item 3: missing required field 'answer'",
        f"{path} item 4: expected a JSON object, got an array",
        f"{path} item 6: field 'answer' must be a string, got a number",
    ]
    assert [(e.line, e.item) for e in errors] == [(None, 2), (None, 3), (None, 4), (None, 6)]


def test_bom_and_leading_whitespace(write_file: WriteFile, read_all: Read) -> None:
    data = b"\xef\xbb\xbf \n\t" + json.dumps({"samples": ROWS}).encode()
    samples, errors = read_all(write_file("data.json", data))
    assert errors == []
    assert len(samples) == 2


def test_empty_array_gives_nothing(write_file: WriteFile, read_all: Read) -> None:
    assert read_all(write_file("data.json", "[]")) == ([], [])
    assert read_all(write_file("data2.json", '{"samples": []}')) == ([], [])


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "must be a JSON array or an object with a 'samples' array, got an empty file"),
        ("  \n", "got an empty file"),
        ('"text"', "must be a JSON array or an object with a 'samples' array"),
        ("42", "must be a JSON array or an object with a 'samples' array"),
        ('{"rows": []}', "the top-level object has no 'samples' array"),
        ('{"samples": {"a": 1}}', "'samples' must be an array, got an object"),
        ('{"samples": null}', "'samples' must be an array, got null"),
        ('{"samples": [], "samples": []}', "more than one 'samples' key"),
        ("[{}, ", "invalid JSON after item 1"),
        ('[{"question": "q",, }]', "invalid JSON before the first item"),
        ("[1] [2]", "invalid JSON after item 1"),
    ],
)
def test_bad_top_level_is_a_dataset_error(
    write_file: WriteFile, content: str, message: str
) -> None:
    path = write_file("bad.json", content)
    with pytest.raises(DatasetError) as info:
        list(read_dataset(path))
    assert message in str(info.value)
    assert str(info.value).startswith(f"{path}: ")


def test_rows_before_a_syntax_error_are_yielded_first(write_file: WriteFile) -> None:
    path = write_file("data.json", json.dumps(ROWS)[:-1] + ", {oops}]")
    entries = read_dataset(path)
    first, second = next(entries), next(entries)
    assert isinstance(first, Sample)
    assert isinstance(second, Sample)
    with pytest.raises(DatasetError, match="invalid JSON after item 2"):
        next(entries)


def test_undecodable_bytes_in_json_are_a_dataset_error(write_file: WriteFile) -> None:
    path = write_file("data.json", b'[{"question": "caf\xe9", "answer": "a"}]')
    with pytest.raises(DatasetError, match="invalid JSON before the first item"):
        list(read_dataset(path))


def test_nested_structures_are_rebuilt(write_file: WriteFile, read_all: Read) -> None:
    row = {
        "question": "q",
        "answer": "a",
        "metadata": {"deep": {"list": [[1, {"x": None}], True], "n": -3}},
    }
    samples, errors = read_all(write_file("data.json", json.dumps([row])))
    assert errors == []
    assert samples[0].metadata == row["metadata"]
