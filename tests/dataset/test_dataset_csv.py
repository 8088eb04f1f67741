"""CSV: contexts as a JSON array cell, empty cells, physical line numbers, bad bytes."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from veracity.dataset import DatasetError, RowError, read_dataset
from veracity.types import Sample

Read = Callable[[Path], tuple[list[Sample], list[RowError]]]
WriteFile = Callable[[str, str | bytes], Path]


def csv_text(header: list[str], *rows: list[str]) -> str:
    """CSV text as the csv module writes it (CRLF line ends, quoting where needed)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


HEADER = ["id", "question", "contexts", "answer", "reference", "system", "metadata"]


def test_basic_rows_and_empty_cells(write_file: WriteFile, read_all: Read) -> None:
    text = csv_text(
        HEADER,
        ["1", "q1", json.dumps(["a, b", 'say "hi"']), "a1", "r1", "sysA", '{"k": [1]}'],
        ["", "q2", "", "a2", "", "", ""],
    )
    samples, errors = read_all(write_file("data.csv", text))
    assert errors == []
    first, second = samples
    assert first == Sample(
        id="1",
        question="q1",
        contexts=("a, b", 'say "hi"'),
        answer="a1",
        reference="r1",
        system="sysA",
        metadata={"k": [1]},
    )
    assert second.contexts == ()
    assert second.reference is None
    assert second.system is None
    assert second.metadata == {}
    assert len(second.id) == 16


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ("", ()),
        ("   ", ()),
        ("[]", ()),
        ('["x", "y"]', ("x", "y")),
        (' ["x"] ', ("x",)),
        ("just one chunk", ("just one chunk",)),
        ('"quoted" text, not JSON', ('"quoted" text, not JSON',)),
    ],
)
def test_contexts_cell_forms(
    write_file: WriteFile, read_all: Read, cell: str, expected: tuple[str, ...]
) -> None:
    text = csv_text(["question", "contexts", "answer"], ["q", cell, "a"])
    samples, errors = read_all(write_file("data.csv", text))
    assert errors == []
    assert samples[0].contexts == expected


@pytest.mark.parametrize(
    ("column", "cell", "message"),
    [
        ("contexts", "[not json", "field 'contexts' is not a valid JSON array: Expecting value"),
        (
            "retrieved_contexts",
            '["ok", 3]',
            "field 'retrieved_contexts' must be a list of strings, but item 2 is a number",
        ),
        ("metadata", "{bad", "field 'metadata' is not valid JSON"),
        ("metadata", "[1]", "field 'metadata' must be an object, got an array"),
    ],
)
def test_bad_cells_are_row_errors(
    write_file: WriteFile, read_all: Read, column: str, cell: str, message: str
) -> None:
    text = csv_text(["question", "answer", column], ["q1", "a", ""], ["q2", "a", cell], ["q3", "a"])
    path = write_file("data.csv", text)
    samples, errors = read_all(path)
    assert [s.question for s in samples] == ["q1", "q3"]
    assert len(errors) == 1
    assert str(errors[0]).startswith(f"{path}:3: {message}")


def test_ragas_csv_loads(write_file: WriteFile, read_all: Read) -> None:
    text = csv_text(
        ["user_input", "retrieved_contexts", "response", "reference", "reference_contexts"],
        ["Who?", json.dumps(["ctx"]), "Him.", "He did.", json.dumps(["r"])],
    )
    samples, errors = read_all(write_file("ragas.csv", text))
    assert errors == []
    (sample,) = samples
    assert (sample.question, sample.contexts, sample.answer, sample.reference) == (
        "Who?",
        ("ctx",),
        "Him.",
        "He did.",
    )
    assert sample.metadata == {"reference_contexts": '["r"]'}


def test_line_numbers_are_where_records_start(write_file: WriteFile, read_all: Read) -> None:
    text = (
        "question,answer,contexts\n"  # 1
        '"multi\nline\nquestion",a,\n'  # 2-4
        "\n"  # 5
        "q,,\n"  # 6: empty answer cell is an empty answer
        '"two\nlines",a,[bad\n'  # 7-8
        "q9\n"  # 9: short row, the answer cell is missing
    )
    path = write_file("data.csv", text)
    samples, errors = read_all(path)
    assert [s.question for s in samples] == ["multi\nline\nquestion", "q"]
    assert samples[1].answer == ""
    assert [e.line for e in errors] == [7, 9]
    assert str(errors[1]) == f"{path}:9: missing required field 'answer'"


def test_undecodable_bytes_flag_the_row_that_contains_them(
    write_file: WriteFile, read_all: Read
) -> None:
    data = (
        b"question,answer\n"
        b"q1,a\n"
        b"caf\xe9,a\n"  # 3
        b'"starts fine\nthen \xff",a\n'  # 4-5
        b"q6,\xc3\xa9t\xc3\xa9\n"
    )
    path = write_file("data.csv", data)
    samples, errors = read_all(path)
    assert [(s.question, s.answer) for s in samples] == [("q1", "a"), ("q6", "été")]
    assert [str(e) for e in errors] == [
        f"{path}:3: undecodable bytes (not UTF-8): 0xe9 at byte 4 of the line",
        f"{path}:4: undecodable bytes (not UTF-8) on line 5: 0xff at byte 6 of the line",
    ]


def test_bom_is_stripped_from_the_header(write_file: WriteFile, read_all: Read) -> None:
    data = "\ufeffquestion,answer\r\nq,a\r\n".encode()
    samples, errors = read_all(write_file("data.csv", data))
    assert errors == []
    assert samples[0].question == "q"


def test_too_many_cells(write_file: WriteFile, read_all: Read) -> None:
    path = write_file("data.csv", "question,answer\nq,a,extra\nq2,a\n")
    samples, errors = read_all(path)
    assert [s.question for s in samples] == ["q2"]
    assert str(errors[0]) == f"{path}:2: row has 3 cells but the header has 2 columns"


def test_unnamed_index_column_and_empty_rows_are_ignored(
    write_file: WriteFile, read_all: Read
) -> None:
    # What pandas' DataFrame.to_csv writes by default, plus a spreadsheet's empty row.
    text = ",question,answer,score\n0,q0,a0,0.5\n,,,\n1,q1,a1,\n"
    samples, errors = read_all(write_file("data.csv", text))
    assert errors == []
    assert [s.question for s in samples] == ["q0", "q1"]
    assert samples[0].metadata == {"score": "0.5"}
    assert samples[1].metadata == {"score": None}


def test_answers_column_expands(write_file: WriteFile, read_all: Read) -> None:
    text = csv_text(["id", "question", "answers"], ["7", "q", '{"A": "x", "B": "y"}'])
    samples, errors = read_all(write_file("data.csv", text))
    assert errors == []
    assert [(s.id, s.system, s.answer) for s in samples] == [("7", "A", "x"), ("7", "B", "y")]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "has no header row"),
        ("\n\n", "has no header row"),
        ("question,answer,question\nq,a,q\n", "names column 'question' twice"),
        (b"qu\xe9stion,answer\nq,a\n", "data.csv:1: header: undecodable bytes"),
    ],
)
def test_whole_file_problems(write_file: WriteFile, content: str | bytes, message: str) -> None:
    path = write_file("data.csv", content)
    with pytest.raises(DatasetError, match=message) as info:
        list(read_dataset(path))
    assert str(path) in str(info.value)


def test_large_cells_pass_the_default_field_limit(write_file: WriteFile, read_all: Read) -> None:
    big = "x" * 300_000
    text = csv_text(["question", "contexts", "answer"], ["q", json.dumps([big]), "a"])
    samples, errors = read_all(write_file("data.csv", text))
    assert errors == []
    assert samples[0].contexts == (big,)


@pytest.mark.parametrize(
    ("cell", "problem"),
    [
        ('"[""unterminated]"', "Unterminated string at column 2"),
        ('"[""a\tb""]"', "Invalid control character at column 4"),
    ],
)
def test_a_broken_json_string_in_a_cell_reads_well(
    write_file: WriteFile, read_all: Read, cell: str, problem: str
) -> None:
    # Python's message ends in "starting at" / "at": the column follows it once.
    path = write_file("data.csv", f"question,answer,contexts\nq,a,{cell}\n")
    _, errors = read_all(path)
    assert [str(e) for e in errors] == [
        f"{path}:2: field 'contexts' is not a valid JSON array: {problem}"
    ]
