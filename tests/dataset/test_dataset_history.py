"""``history``: the earlier turns of a conversation, from every format, its aliases, its
bad rows, and its part in the missing-id hash."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from veracity.dataset import RowError, stable_sample_id
from veracity.dataset.turns import SHAPES
from veracity.evaluation.inputs import items_from
from veracity.types import Sample, Turn

Read = Callable[[Path], tuple[list[Sample], list[RowError]]]
WriteRows = Callable[..., Path]
WriteFile = Callable[[str, str | bytes], Path]

TURNS = [
    {"role": "user", "content": "When was the Eiffel Tower finished?"},
    {"role": "assistant", "content": "In 1889.", "name": "bot", "timestamp": 3},
    "a turn of unknown speaker",
]
EXPECTED = (
    Turn(role="user", content="When was the Eiffel Tower finished?"),
    Turn(role="assistant", content="In 1889."),
    Turn(role=None, content="a turn of unknown speaker"),
)
ROW = {"question": "And how tall is it?", "answer": "330 m.", "contexts": ["c"]}


@pytest.mark.parametrize("name", ["history", "conversation", "messages", "chat_history"])
def test_history_and_its_aliases_load_from_jsonl(
    name: str, write_jsonl: WriteRows, read_all: Read
) -> None:
    samples, errors = read_all(write_jsonl(ROW | {name: TURNS}))
    assert errors == []
    # Other keys of a turn (a name, a timestamp) are not part of it; nor go to metadata.
    assert samples[0].history == EXPECTED
    assert samples[0].metadata == {}


def test_no_history_is_an_empty_tuple(write_jsonl: WriteRows, read_all: Read) -> None:
    samples, _ = read_all(
        write_jsonl(
            ROW | {"id": "a"}, ROW | {"id": "b", "history": None}, ROW | {"id": "c", "history": []}
        )
    )
    assert [s.history for s in samples] == [(), (), ()]


def test_a_lone_string_is_one_turn(write_jsonl: WriteRows, read_all: Read) -> None:
    samples, _ = read_all(write_jsonl(ROW | {"history": "User: hi\nBot: hello"}))
    assert samples[0].history == (Turn(content="User: hi\nBot: hello"),)


def test_json_array_and_samples_object(write_file: WriteFile, read_all: Read) -> None:
    rows = [ROW | {"id": "1", "messages": TURNS}]
    for text in (json.dumps(rows), json.dumps({"samples": rows})):
        samples, errors = read_all(write_file("data.json", text))
        assert errors == [] and samples[0].history == EXPECTED


def test_csv_cell_holds_a_json_array_or_one_plain_turn(
    write_file: WriteFile, read_all: Read
) -> None:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["id", "question", "answer", "chat_history"])
    writer.writerow(["1", "q", "a", json.dumps(TURNS)])
    writer.writerow(["2", "q", "a", "earlier, as plain text"])
    writer.writerow(["3", "q", "a", ""])
    writer.writerow(["4", "q", "a", "[not json"])
    samples, errors = read_all(write_file("data.csv", out.getvalue()))
    assert [s.history for s in samples] == [EXPECTED, (Turn(content="earlier, as plain text"),), ()]
    assert [(e.line, e.message) for e in errors] == [
        (5, "field 'chat_history' is not a valid JSON array: Expecting value at column 2")
    ]


@pytest.mark.parametrize(
    ("history", "message"),
    [
        ({"role": "user"}, f"field 'history' must be a list of turns ({SHAPES}), got an object"),
        ([1], f"field 'history' item 1 is a number; a turn is one of: {SHAPES}"),
        (["ok", {"role": "user"}], f"field 'history' item 2 has no text (keys 'role'); a turn "
         f"is one of: {SHAPES}"),
        ([{"role": "user", "content": 3}], "field 'history' item 1 'content' must be a string "
         "or a list of text parts, got a number"),
        ([{"role": "narrator", "content": "x"}], "field 'history' item 1 has an unknown role "
         "'narrator' (known: agent, ai, assistant, bot, developer, function, gpt, human, model, "
         "system, tool, user)"),
        ([{"speaker": 7, "text": "x"}], "field 'history' item 1 has an unknown speaker a number "
         "(known: agent"),
    ],
)  # fmt: skip
def test_bad_history_is_a_bad_row_naming_file_and_line(
    history: object, message: str, write_jsonl: WriteRows, read_all: Read
) -> None:
    path = write_jsonl(ROW | {"id": "good"}, ROW | {"id": "bad", "history": history})
    samples, errors = read_all(path)
    assert [s.id for s in samples] == ["good"]  # the valid row still runs
    assert len(errors) == 1 and str(errors[0]).startswith(f"{path}:2: {message}")


def test_two_aliases_must_agree(write_jsonl: WriteRows, read_all: Read) -> None:
    same = ROW | {"id": "1", "history": ["x"], "messages": ["x"]}
    differ = ROW | {"id": "2", "history": ["x"], "conversation": ["y"]}
    samples, errors = read_all(write_jsonl(same, differ))
    assert [s.id for s in samples] == ["1"]
    assert [e.message for e in errors] == [
        "fields 'history' and 'conversation' both give the history but differ"
    ]


def test_samples_in_memory_follow_the_same_rules() -> None:
    rows = [ROW | {"id": "1", "messages": TURNS}, ROW | {"id": "2", "history": [None]}]
    found = list(items_from(rows)[0])
    assert isinstance(found[0], Sample) and found[0].history == EXPECTED
    assert isinstance(found[1], RowError)
    assert str(found[1]) == (
        f"samples row 1: field 'history' item 1 is null; a turn is one of: {SHAPES}"
    )


def test_a_sample_takes_turns_as_dicts_or_strings() -> None:
    sample = Sample(id="s", question="q", answer="a", history=[TURNS[0], "plain"])
    assert sample.history == (EXPECTED[0], Turn(content="plain"))


# ------------------------------------------------------------------------------ ids


def test_the_id_of_a_sample_without_history_is_unchanged() -> None:
    # Pinned: existing runs, whose samples have no history, must keep their ids to resume.
    canonical = '{"answer":"a","contexts":["c"],"question":"q","system":null}'
    expected = hashlib.sha256(canonical.encode()).hexdigest()[:16]
    assert stable_sample_id("q", "a", ["c"], None) == expected
    assert stable_sample_id("q", "a", ["c"], None, ()) == expected


def test_samples_differing_only_in_history_get_different_ids(
    write_jsonl: WriteRows, read_all: Read
) -> None:
    rows = [
        ROW,
        ROW | {"history": ["When was the Eiffel Tower finished?"]},
        ROW | {"history": ["When was the Statue of Liberty finished?"]},
        ROW | {"history": [{"role": "user", "content": "When was the Eiffel Tower finished?"}]},
        ROW | {"history": ["When was the Eiffel Tower finished?", "In 1889."]},
    ]
    samples, errors = read_all(write_jsonl(*rows))
    assert errors == []  # none is a duplicate of another
    assert len({s.id for s in samples}) == len(rows)
    again, _ = read_all(write_jsonl(*rows, name="again.jsonl"))
    assert [s.id for s in again] == [s.id for s in samples]  # and each is stable
