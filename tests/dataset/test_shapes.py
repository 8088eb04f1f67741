"""Issue 48 item 12: a file of traces or chat logs is named as such, with what reads it,
not failed row by row with "missing required field 'question'"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from veracity.cli.app import app
from veracity.dataset import DatasetError, RowError, read_dataset
from veracity.types import Sample

SPAN = {"traceId": "a1", "spanId": "b1", "name": "chain"}
OTLP = {"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"spans": [SPAN]}]}]}
CHAT = {"messages": [{"role": "user", "content": "Where is it?"},
                     {"role": "assistant", "content": "In Paris."}]}  # fmt: skip
SAMPLE = {"question": "Where is it?", "answer": "In Paris.", "contexts": ["It is in Paris."]}
LANGFUSE_TRACE = {"id": "t1", "input": "q", "output": "a", "observations": []}


def jsonl(path: Path, *rows: Any) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def read_all(path: Path) -> list[Sample | RowError]:
    return list(read_dataset(path))


def test_an_otlp_file_names_the_flag_that_reads_it(tmp_path: Path) -> None:
    one_object = tmp_path / "t.json"
    one_object.write_text(json.dumps(OTLP))
    for path in (jsonl(tmp_path / "t.jsonl", OTLP, OTLP), one_object):
        with pytest.raises(DatasetError, match="OTLP trace JSON") as raised:
            read_all(path)
        assert "--from otlp" in str(raised.value) and "missing required" not in str(raised.value)


def test_a_chat_log_says_which_fields_to_give(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "chat.jsonl", CHAT, CHAT, CHAT)
    with pytest.raises(DatasetError) as raised:
        read_all(path)
    message = str(raised.value)
    assert "'messages' (a chat log)" in message and "'question'" in message
    assert "'contexts'" in message


def test_the_hint_it_gives_for_a_chat_log_works(tmp_path: Path) -> None:
    renamed = {"question": CHAT["messages"]}
    (sample,) = read_all(jsonl(tmp_path / "chat.jsonl", renamed))
    assert isinstance(sample, Sample)
    assert (sample.question, sample.answer) == ("Where is it?", "In Paris.")


def test_a_langfuse_export_names_its_flag(tmp_path: Path) -> None:
    path = tmp_path / "export.json"
    path.write_text(json.dumps([LANGFUSE_TRACE]))
    with pytest.raises(DatasetError, match="--from langfuse"):
        read_all(path)


def test_one_odd_row_among_samples_stays_a_bad_row(tmp_path: Path) -> None:
    found = read_all(jsonl(tmp_path / "mixed.jsonl", CHAT, SAMPLE))
    assert isinstance(found[0], RowError) and "missing required field" in found[0].message
    assert isinstance(found[1], Sample)


def test_run_exits_2_with_the_hint(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "t.jsonl", OTLP)
    result = CliRunner().invoke(app, ["run", str(path), "--judge", "offline",
                                      "--out", str(tmp_path / "run")])  # fmt: skip
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    assert "veracity run --from otlp" in said and "bad row" not in said
