"""JSONL: aliases, extras, and every kind of bad line, each named by file and line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from veracity.dataset import RowError, read_dataset
from veracity.types import Sample

Read = Callable[[Path], tuple[list[Sample], list[RowError]]]
WriteRows = Callable[..., Path]
WriteFile = Callable[[str, str | bytes], Path]

GOOD = {"id": "g", "question": "Q?", "answer": "A.", "contexts": ["c1", "c2"]}


def test_canonical_row_loads(write_jsonl: WriteRows, read_all: Read) -> None:
    row = {
        "id": "s1",
        "question": "What is X?",
        "contexts": ["X is Y.", "Z."],
        "answer": "X is Y.",
        "reference": "Y",
        "question_type": "simple",
        "system": "bm25",
        "metadata": {"source": "log"},
    }
    samples, errors = read_all(write_jsonl(row))
    assert errors == []
    assert samples == [
        Sample(
            id="s1",
            question="What is X?",
            contexts=("X is Y.", "Z."),
            answer="X is Y.",
            reference="Y",
            question_type="simple",
            system="bm25",
            metadata={"source": "log"},
        )
    ]


def test_ragas_row_loads_unchanged(write_jsonl: WriteRows, read_all: Read) -> None:
    row = {
        "user_input": "Who wrote Hamlet?",
        "retrieved_contexts": ["Hamlet is a play by Shakespeare."],
        "response": "Shakespeare.",
        "reference": "William Shakespeare",
        "reference_contexts": ["ref ctx"],
        "synthesizer_name": "single_hop",
    }
    samples, errors = read_all(write_jsonl(row))
    assert errors == []
    (sample,) = samples
    assert sample.question == "Who wrote Hamlet?"
    assert sample.contexts == ("Hamlet is a play by Shakespeare.",)
    assert sample.answer == "Shakespeare."
    assert sample.reference == "William Shakespeare"
    assert sample.metadata == {"reference_contexts": ["ref ctx"], "synthesizer_name": "single_hop"}
    assert len(sample.id) == 16


@pytest.mark.parametrize(
    ("alias", "value", "field", "expected"),
    [
        ("user_input", "q-alias", "question", "q-alias"),
        ("query", "q-alias", "question", "q-alias"),
        ("retrieved_contexts", ["a", "b"], "contexts", ("a", "b")),
        ("context", ["a"], "contexts", ("a",)),
        ("context", "one chunk", "contexts", ("one chunk",)),
        ("retrieved_contexts", "one chunk", "contexts", ("one chunk",)),
        ("response", "ans", "answer", "ans"),
        ("ground_truth", "ref", "reference", "ref"),
        ("expected_answer", "ref", "reference", "ref"),
        ("queryLogId", "log-7", "id", "log-7"),
        ("query_id", "log-8", "id", "log-8"),
    ],
)
def test_each_alias(
    write_jsonl: WriteRows,
    read_all: Read,
    alias: str,
    value: object,
    field: str,
    expected: object,
) -> None:
    row: dict[str, object] = {"id": "x", "question": "q", "answer": "a"}
    row.pop(field, None)
    row[alias] = value
    samples, errors = read_all(write_jsonl(row))
    assert errors == []
    assert getattr(samples[0], field) == expected
    assert alias not in samples[0].metadata


def test_alias_agreeing_with_canonical_is_fine(write_jsonl: WriteRows, read_all: Read) -> None:
    row = {"id": 5, "query_id": "5", "question": "q", "user_input": "q", "answer": "a"}
    samples, errors = read_all(write_jsonl(row))
    assert errors == []
    assert samples[0].id == "5"


def test_alias_conflict_is_a_row_error(write_jsonl: WriteRows, read_all: Read) -> None:
    path = write_jsonl(GOOD, {"question": "q", "user_input": "other", "answer": "a"})
    samples, errors = read_all(path)
    assert [s.id for s in samples] == ["g"]
    assert [str(e) for e in errors] == [
        f"{path}:2: fields 'question' and 'user_input' both give the question but differ"
    ]


def test_numeric_ids_become_strings(write_jsonl: WriteRows, read_all: Read) -> None:
    rows = [{"id": n, "question": "q", "answer": "a"} for n in (7, 8.0, 2.5)]
    samples, errors = read_all(write_jsonl(*rows))
    assert errors == []
    assert [s.id for s in samples] == ["7", "8", "2.5"]


def test_extra_fields_merge_into_metadata(write_jsonl: WriteRows, read_all: Read) -> None:
    row = {"question": "q", "answer": "a", "metadata": {"k": 1}, "latency_ms": 12, "k": 1}
    samples, errors = read_all(write_jsonl(row))
    assert errors == []
    assert samples[0].metadata == {"k": 1, "latency_ms": 12}


def test_extra_field_clashing_with_metadata(write_jsonl: WriteRows, read_all: Read) -> None:
    path = write_jsonl({"question": "q", "answer": "a", "metadata": {"k": 1}, "k": 2})
    _, errors = read_all(path)
    assert [str(e) for e in errors] == [
        f"{path}:1: field 'k' is also in 'metadata' with a different value"
    ]


def test_nulls_in_optional_fields(write_jsonl: WriteRows, read_all: Read) -> None:
    row = {
        "id": None,
        "question": "q",
        "answer": "a",
        "contexts": None,
        "reference": None,
        "metadata": None,
        "system": None,
    }
    samples, errors = read_all(write_jsonl(row))
    assert errors == []
    assert samples[0].contexts == ()
    assert samples[0].reference is None
    assert samples[0].metadata == {}
    assert len(samples[0].id) == 16


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"answer": "a"}, "missing required field 'question'"),
        ({"question": "q"}, "missing required field 'answer'"),
        ({"question": "q", "answer": None}, "missing required field 'answer'"),
        ({"question": 3, "answer": "a"}, "field 'question' must be a string, got a number"),
        (
            {"query": ["q"], "answer": "a"},
            "field 'query' must be a string, or a conversation "
            "whose last user turn is the question; got 1 turn(s), none of them the user's",
        ),
        (
            {"question": "q", "answer": "a", "contexts": {"a": 1}},
            "field 'contexts' must be a list of strings, got an object",
        ),
        (
            {"question": "q", "answer": "a", "retrieved_contexts": ["ok", 2]},
            "field 'retrieved_contexts' must be a list of strings, but item 2 is a number",
        ),
        (
            {"question": "q", "answer": "a", "metadata": [1]},
            "field 'metadata' must be an object, got an array",
        ),
        ({"question": "q", "answer": "a", "id": True}, "field 'id' must be a string or a number"),
        ({"question": "q", "answer": "a", "system": 1}, "field 'system' must be a string"),
        ({"question": "q", "answer": "a", "reference": 1}, "field 'reference' must be a string"),
        ({"question": "q", "answer": "a", "question_type": []}, "field 'question_type' must be"),
    ],
)
def test_bad_rows_name_file_line_and_field(
    write_jsonl: WriteRows, read_all: Read, row: dict[str, object], message: str
) -> None:
    path = write_jsonl(GOOD, row, GOOD | {"id": "g2"})
    samples, errors = read_all(path)
    assert [s.id for s in samples] == ["g", "g2"]
    assert len(errors) == 1
    assert errors[0].line == 2
    assert errors[0].item is None
    assert str(errors[0]).startswith(f"{path}:2: {message}")


def test_invalid_json_and_non_objects(write_file: WriteFile, read_all: Read) -> None:
    good = '{"question": "q", "answer": "a", "id": "%s"}\n'
    text = good % "1" + "{not json\n" + "[1, 2]\n" + '"text"\n' + "null\n" + good % "2"
    path = write_file("data.jsonl", text)
    samples, errors = read_all(path)
    assert [s.id for s in samples] == ["1", "2"]
    assert [str(e) for e in errors] == [
        f"{path}:2: invalid JSON: Expecting property name enclosed in double quotes at column 2",
        f"{path}:3: expected a JSON object, got an array",
        f"{path}:4: expected a JSON object, got a string",
        f"{path}:5: expected a JSON object, got null",
    ]


def test_nan_is_not_json(write_file: WriteFile, read_all: Read) -> None:
    path = write_file("data.jsonl", '{"question": "q", "answer": "a", "metadata": {"x": NaN}}\n')
    samples, errors = read_all(path)
    assert samples == []
    assert str(errors[0]) == f"{path}:1: invalid JSON: NaN is not valid JSON"


def test_blank_lines_are_skipped_and_lines_still_counted(
    write_file: WriteFile, read_all: Read
) -> None:
    text = '\n   \n{"question": "q", "answer": "a"}\r\n\t\n{"question": 1, "answer": "a"}\n\n'
    path = write_file("data.jsonl", text)
    samples, errors = read_all(path)
    assert len(samples) == 1
    assert [e.line for e in errors] == [5]


def test_bom_and_crlf(write_file: WriteFile, read_all: Read) -> None:
    text = '\ufeff{"question": "q1", "answer": "a"}\r\n{"question": "q2", "answer": "a"}\r\n'
    samples, errors = read_all(write_file("data.jsonl", text))
    assert errors == []
    assert [s.question for s in samples] == ["q1", "q2"]


def test_undecodable_line_is_a_row_error_others_load(write_file: WriteFile, read_all: Read) -> None:
    data = (
        b'{"question": "q1", "answer": "a"}\n'
        b'{"question": "caf\xe9", "answer": "a"}\n'
        b'{"question": "q3", "answer": "\xc3\xa9t\xc3\xa9"}\n'
    )
    path = write_file("data.jsonl", data)
    samples, errors = read_all(path)
    assert [s.question for s in samples] == ["q1", "q3"]
    assert samples[1].answer == "été"
    assert [str(e) for e in errors] == [
        f"{path}:2: undecodable bytes (not UTF-8): 0xe9 at byte 18 of the line"
    ]


def test_ndjson_and_uppercase_extension(write_file: WriteFile, read_all: Read) -> None:
    row = '{"question": "q", "answer": "a"}\n'
    for name in ("data.ndjson", "DATA.JSONL", "data.NDJson"):
        samples, errors = read_all(write_file(name, row))
        assert (len(samples), errors) == (1, [])


def test_entries_come_in_file_order(write_jsonl: WriteRows) -> None:
    path = write_jsonl(GOOD, {"question": "q"}, GOOD | {"id": "g2"})
    kinds = [type(entry).__name__ for entry in read_dataset(path)]
    assert kinds == ["Sample", "RowError", "Sample"]
