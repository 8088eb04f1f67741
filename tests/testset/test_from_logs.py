"""``logs_to_testset``: aliases, de-duplication, filtering, sampling, strata, bad rows."""

from __future__ import annotations

import csv
import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from veracity.cli import testset as testset_cli
from veracity.dataset import DatasetError, read_dataset
from veracity.testset import MISSING_STRATUM, logs_to_testset
from veracity.types import Sample


def write_log(path: Path, rows: list[dict[str, Any] | str]) -> Path:
    lines = [row if isinstance(row, str) else json.dumps(row) for row in rows]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def written(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def log_row(n: int, **fields: Any) -> dict[str, Any]:
    return {"query": f"Question number {n}?", "response": f"Answer {n}.",
            "retrieved_contexts": [f"Context {n}."]} | fields  # fmt: skip


def test_aliases_become_veracity_fields_with_the_source_line(tmp_path: Path) -> None:
    log = write_log(
        tmp_path / "logs.jsonl",
        [
            {"queryLogId": "a1", "query": "Where is my order?", "response": "It shipped.",
             "retrieved_contexts": ["Orders ship in 2 days."], "channel": "web"},
            {"query_id": 7, "user_input": "How do I reset it?", "answer": "Hold the button.",
             "context": "Hold the reset button for 5 s.", "question_type": "how_to",
             "system": "rag-v2"},
        ],
    )  # fmt: skip
    out = tmp_path / "testset.jsonl"
    report = logs_to_testset(log, out)
    assert (report.rows, report.written, report.bad_rows) == (2, 2, 0)
    first, second = written(out)
    assert first == {
        "id": "a1",
        "question": "Where is my order?",
        "contexts": ["Orders ship in 2 days."],
        "answer": "It shipped.",
        "reference": None,
        "question_type": None,
        "system": None,
        "metadata": {"channel": "web", "source_file": "logs.jsonl", "source_line": 1},
    }
    assert second["id"] == "7"
    assert second["contexts"] == ["Hold the reset button for 5 s."]
    assert (second["question_type"], second["system"]) == ("how_to", "rag-v2")
    assert second["metadata"]["source_line"] == 2
    # The test set is a veracity dataset.
    assert all(isinstance(s, Sample) for s in read_dataset(out))


def test_csv_logs_are_read_too(tmp_path: Path) -> None:
    log = tmp_path / "logs.csv"
    with log.open("w", newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(["queryLogId", "query", "retrieved_contexts", "response"])
        writer.writerow(["x1", "What is the fee?", json.dumps(["The fee is 5 EUR."]), "5 EUR."])
        writer.writerow(["x2", "Broken contexts?", "[not json", "An answer."])
    out = tmp_path / "testset.jsonl"
    report = logs_to_testset(log, out)
    assert report.written == 1 and report.bad_rows == 1
    assert report.bad[0].location == f"{log}:3"
    assert written(out)[0]["contexts"] == ["The fee is 5 EUR."]


def test_duplicates_are_found_after_normalising_the_question(tmp_path: Path) -> None:
    log = write_log(
        tmp_path / "logs.jsonl",
        [
            log_row(1, query="What is the warranty?", response="Two years."),
            log_row(2, query="what is  the WARRANTY", response="2 years."),
            log_row(3, query="What is the warranty ?!", response="Two years, really."),
            log_row(4, query="What is the warranty period?"),
        ],
    )
    out = tmp_path / "testset.jsonl"
    report = logs_to_testset(log, out)
    assert report.duplicates == 2
    assert [row["answer"] for row in written(out)] == ["Two years.", "Answer 4."]  # the first
    assert [str(d) for d in report.dropped] == [
        f"{log}:2: duplicate question of line 1",
        f"{log}:3: duplicate question of line 1",
    ]


def test_a_follow_up_is_a_question_of_its_conversation_and_keeps_it(tmp_path: Path) -> None:
    eiffel = [{"role": "user", "content": "When was the Eiffel Tower built?"}, "In 1889."]
    louvre = [{"role": "user", "content": "When was the Louvre built?"}, "In 1793."]
    log = write_log(
        tmp_path / "logs.jsonl",
        [
            log_row(1, query="And how tall is it?", messages=eiffel),
            log_row(2, query="And how tall is it?", messages=louvre),  # another question
            log_row(3, query="and how TALL is it", messages=eiffel),  # the same again
            log_row(4, query="And how tall is it?"),  # without a conversation: another
        ],
    )
    out = tmp_path / "testset.jsonl"
    report = logs_to_testset(log, out)
    assert report.duplicates == 1
    assert [str(d) for d in report.dropped] == [f"{log}:3: duplicate question of line 1"]
    rows = written(out)
    assert [row.get("history") for row in rows] == [eiffel, louvre, None]
    assert "messages" not in rows[0]["metadata"]
    again = [s for s in read_dataset(out) if isinstance(s, Sample)]
    assert [len(s.history) for s in again] == [2, 2, 0]  # the test set reads back the same


def test_empty_and_overlong_rows_are_filtered_with_their_line(tmp_path: Path) -> None:
    log = write_log(
        tmp_path / "logs.jsonl",
        [
            log_row(1),
            log_row(2, query="   "),
            log_row(3, response=""),
            log_row(4, retrieved_contexts=["x" * 500]),
            log_row(5),
        ],
    )
    out = tmp_path / "testset.jsonl"
    report = logs_to_testset(log, out, max_chars=300)
    assert report.filtered == Counter({"empty_question": 1, "empty_answer": 1, "too_long": 1})
    assert [d.location for d in report.dropped] == [f"{log}:2", f"{log}:3", f"{log}:4"]
    assert "over --max-chars 300" in report.dropped[2].message
    assert [row["metadata"]["source_line"] for row in written(out)] == [1, 5]
    # A filtered row does not hide a later, usable row with the same question.
    log = write_log(tmp_path / "again.jsonl", [log_row(1, response=""), log_row(1)])
    assert logs_to_testset(log, out).written == 1


def test_bad_rows_are_counted_with_their_line_and_the_rest_is_kept(tmp_path: Path) -> None:
    log = write_log(
        tmp_path / "logs.jsonl",
        [
            log_row(1, queryLogId="same"),
            "{not json",
            {"query": "No answer?"},
            log_row(4, retrieved_contexts=[1, 2]),
            log_row(5, queryLogId="same"),  # a different question with a taken id
            log_row(6),
        ],
    )
    out = tmp_path / "testset.jsonl"
    report = logs_to_testset(log, out)
    assert report.rows == 6
    assert report.bad_rows == 4
    assert [e.line for e in report.bad] == [2, 3, 4, 5]
    assert "missing required field 'answer'" in str(report.bad[1])
    assert "also the id of line 1" in str(report.bad[3])
    assert report.written == 2


def many_rows(n: int, **fields: Any) -> list[dict[str, Any] | str]:
    return [log_row(i, **fields) for i in range(n)]


def test_sampling_is_reproducible_and_the_seed_matters(tmp_path: Path) -> None:
    log = write_log(tmp_path / "logs.jsonl", many_rows(200))
    outs = [tmp_path / f"out{i}.jsonl" for i in range(3)]
    logs_to_testset(log, outs[0], sample=20, seed=1)
    logs_to_testset(log, outs[1], sample=20, seed=1)
    report = logs_to_testset(log, outs[2], sample=20, seed=2)
    assert outs[0].read_bytes() == outs[1].read_bytes()
    assert report.written == 20
    first, other = {r["id"] for r in written(outs[0])}, {r["id"] for r in written(outs[2])}
    assert len(first) == 20 and first != other
    # Rows come out in log order.
    lines = [r["metadata"]["source_line"] for r in written(outs[0])]
    assert lines == sorted(lines)


def test_the_sample_does_not_depend_on_the_order_of_the_log(tmp_path: Path) -> None:
    rows = many_rows(150)
    shuffled = list(rows)
    random.Random(5).shuffle(shuffled)
    a = logs_to_testset(write_log(tmp_path / "a.jsonl", rows), tmp_path / "a_out.jsonl",
                          sample=15, seed=9)  # fmt: skip
    b = logs_to_testset(write_log(tmp_path / "b.jsonl", shuffled), tmp_path / "b_out.jsonl",
                          sample=15, seed=9)  # fmt: skip
    assert a.written == b.written == 15
    ids_a = {r["id"] for r in written(tmp_path / "a_out.jsonl")}
    assert ids_a == {r["id"] for r in written(tmp_path / "b_out.jsonl")}


def test_a_sample_larger_than_the_log_takes_everything(tmp_path: Path) -> None:
    log = write_log(tmp_path / "logs.jsonl", many_rows(5))
    report = logs_to_testset(log, tmp_path / "out.jsonl", sample=50)
    assert report.written == report.eligible == 5


def test_stratified_sampling_is_proportional(tmp_path: Path) -> None:
    rows: list[dict[str, Any] | str] = []
    for kind, size in (("billing", 60), ("setup", 30), ("errors", 10)):
        rows += [log_row(len(rows) + i, question_type=kind) for i in range(size)]
    log = write_log(tmp_path / "logs.jsonl", rows)
    out = tmp_path / "out.jsonl"
    report = logs_to_testset(log, out, sample=10, stratify="question_type", seed=3)
    assert Counter(r["question_type"] for r in written(out)) == {
        "billing": 6, "setup": 3, "errors": 1
    }  # fmt: skip
    assert {k: (c.eligible, c.written) for k, c in report.strata.items()} == {
        "billing": (60, 6), "setup": (30, 3), "errors": (10, 1)
    }  # fmt: skip


def test_every_stratum_gets_one_when_the_sample_allows(tmp_path: Path) -> None:
    rows: list[dict[str, Any] | str] = [log_row(i, channel="web") for i in range(97)]
    rows += [log_row(100 + i, channel=channel) for i, channel in enumerate(("app", "phone"))]
    rows.append(log_row(200))  # no channel at all
    log = write_log(tmp_path / "logs.jsonl", rows)
    out = tmp_path / "out.jsonl"
    report = logs_to_testset(log, out, sample=5, stratify="channel")
    assert {k: c.written for k, c in report.strata.items()} == {
        "web": 2, "app": 1, "phone": 1, MISSING_STRATUM: 1
    }  # fmt: skip
    assert report.written == 5


def test_stratifying_by_system_without_a_sample_just_counts(tmp_path: Path) -> None:
    rows: list[dict[str, Any] | str] = [log_row(i, system="a" if i % 4 else "b") for i in range(8)]
    report = logs_to_testset(
        write_log(tmp_path / "l.jsonl", rows), tmp_path / "o.jsonl", stratify="system"
    )
    assert report.written == 8
    assert {k: c.written for k, c in report.strata.items()} == {"a": 6, "b": 2}


def test_bad_arguments_and_files_are_errors(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="does not exist"):
        logs_to_testset(tmp_path / "missing.jsonl", tmp_path / "o.jsonl")
    with pytest.raises(DatasetError, match="unknown log format"):
        logs_to_testset(tmp_path / "logs.txt", tmp_path / "o.jsonl")
    log = write_log(tmp_path / "l.jsonl", many_rows(2))
    with pytest.raises(ValueError, match="sample"):
        logs_to_testset(log, tmp_path / "o.jsonl", sample=0)
    assert not (tmp_path / "o.jsonl").exists()


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(testset_cli.testset_app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_cli_from_logs_prints_the_summary(tmp_path: Path) -> None:
    rows: list[dict[str, Any] | str] = [log_row(i, question_type="ab"[i % 2]) for i in range(40)]
    rows += [log_row(0), log_row(41, response=""), "[1, 2"]
    log = write_log(tmp_path / "logs.jsonl", rows)
    out = tmp_path / "testset.jsonl"
    code, stdout, stderr = invoke(
        "from-logs", str(log), "--out", str(out), "--sample", "10", "--stratify",
        "question_type", "--seed", "4",
    )  # fmt: skip
    assert code == 0, stderr
    for expected in (
        r"rows read +43\n",
        r"bad rows +1\n",
        r"duplicates +1\n",
        r"filtered +1  \(empty_answer 1\)\n",
        r"eligible +40\n",
        r"written +10 -> .*testset\.jsonl \(sample 10, seed 4\)\n",
        r"strata by question_type: a 5 of 20, b 5 of 20\n",
    ):
        assert re.search(expected, stdout), stdout
    assert f"bad row {log}:43: invalid JSON" in stderr
    assert f"dropped {log}:41: duplicate question of line 1" in stderr
    assert len(written(out)) == 10


def test_cli_from_logs_fails_cleanly(tmp_path: Path) -> None:
    code, _, stderr = invoke("from-logs", str(tmp_path / "nope.jsonl"), "--out", "o.jsonl")
    assert code == 2 and "does not exist" in stderr
    log = write_log(tmp_path / "logs.jsonl", many_rows(2))
    code, _, stderr = invoke("from-logs", str(log), "--out", str(log))
    assert code == 2 and "must not be the log file" in stderr
    assert len(log.read_text().splitlines()) == 2
