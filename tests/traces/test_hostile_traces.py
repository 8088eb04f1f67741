"""Hostile trace files: one bad trace is a counted skip, named by file, line and trace id,
and the other traces are evaluated; never a traceback. A degenerate answer (a thousand
``[``) is read as the text it is and judged."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.helpers import offline_judge_or_skip
from tests.traces.test_langfuse_export import trace as langfuse_trace
from tests.traces.test_otlp_traces import ANSWER, QUESTION, _request, openinference_trace
from veracity.cli.app import app
from veracity.traces import (
    UNREADABLE_LINE,
    UNREADABLE_TRACE,
    TraceReadWarning,
    samples_from_traces,
)

Spans = list[dict[str, Any]]


def _good(trace_id: str = "good") -> str:
    return json.dumps(_request(openinference_trace(trace_id)))


def _bad(change: Callable[[Spans], None], trace_id: str = "bad") -> str:
    spans = openinference_trace(trace_id)
    change(spans)
    return json.dumps(_request(spans))


def _set(spans: Spans, index: int, key: str, value: str) -> None:
    for attribute in spans[index]["attributes"]:
        if attribute["key"] == key:
            attribute["value"] = {"stringValue": value}


def _start(raw: str) -> str:
    """A trace whose retriever span starts at ``raw`` (JSON text, written as is)."""

    def change(spans: Spans) -> None:
        spans[1]["startTimeUnixNano"] = "__start__"

    return _bad(change).replace('"__start__"', raw)


def _appended(index: int, key: str, value: dict[str, Any]) -> str:
    return _bad(lambda spans: spans[index]["attributes"].append({"key": key, "value": value}))


# (name, the bad line, what the skip says): each in a file between two good traces.
SKIPPED = [
    ("nested 1,000 deep", '{"resourceSpans": [' + "[" * 1_000 + "]" * 1_000 + "]}",
     (UNREADABLE_LINE, ":2: not JSON that can be read (nested too deep)")),
    ("a dict nested 1,000 deep", '{"resourceSpans": [' + '{"a":' * 1_000 + "1" + "}" * 1_000
     + "]}", (UNREADABLE_LINE, ":2: not JSON that can be read (nested too deep)")),
    ("start 1e400", _start("1e400"),
     (UNREADABLE_TRACE, "trace bad (FILE:2): span 'retrieve': startTimeUnixNano 'inf' is not")),
    ("start Infinity", _start("Infinity"),
     (UNREADABLE_TRACE, "trace bad (FILE:2): span 'retrieve': startTimeUnixNano 'inf' is not")),
    ("start 'Infinity'", _start('"Infinity"'),
     (UNREADABLE_TRACE, "startTimeUnixNano 'Infinity' is not a time in nanoseconds")),
    ("a kvlistValue of a string", _appended(2, "x", {"kvlistValue": "x"}),
     (UNREADABLE_TRACE, "(FILE:2): span 'llm': kvlistValue: its values are not a list but str")),
    ("an arrayValue of a number", _appended(2, "x", {"arrayValue": {"values": 3}}),
     (UNREADABLE_TRACE, "arrayValue: its values are not a list but int")),
    ("a rank of 5,000 digits", _appended(
        1, "retrieval.documents." + "9" * 5_000 + ".document.content", {"stringValue": "x"}),
     (UNREADABLE_TRACE, "trace bad (FILE:2): ValueError: retrieval.documents.999")),
]  # fmt: skip


def _file(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "traces.jsonl"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize(("bad", "said"), [c[1:] for c in SKIPPED], ids=[c[0] for c in SKIPPED])
def test_a_bad_trace_is_a_counted_located_skip(
    bad: str, said: tuple[str, str], tmp_path: Path
) -> None:
    path = _file(tmp_path, _good("g1"), bad, _good("g2"))
    with pytest.warns(TraceReadWarning, match=f"reading traces: 1 {said[0]} \\("):
        found = samples_from_traces(path)
    assert [s.id for s in found.samples] == ["g1", "g2"]
    reason, where = said
    assert found.skipped == {reason: 1}
    assert where.replace("FILE", str(path)) in found.tally.where(reason)


@pytest.mark.parametrize("key", ["output.value", "input.value"])
def test_a_degenerate_text_is_read_as_text(key: str, tmp_path: Path) -> None:
    brackets = "[" * 1_500
    path = _file(tmp_path, _bad(lambda spans: _set(spans, 0, key, brackets)))
    (sample,) = samples_from_traces(path).samples
    assert (sample.question, sample.answer) == (
        (QUESTION, brackets) if key == "output.value" else (brackets, ANSWER)
    )


def test_a_langfuse_trace_whose_observations_are_not_a_list_is_skipped(tmp_path: Path) -> None:
    bad = {**langfuse_trace("lf-bad"), "observations": 5}
    lines = tmp_path / "lf.jsonl"
    lines.write_text(f"{json.dumps(langfuse_trace())}\n{json.dumps(bad)}\n", encoding="utf-8")
    export = tmp_path / "lf.json"
    export.write_text(json.dumps({"data": [langfuse_trace(), bad]}), encoding="utf-8")
    for path, where in ((lines, f"({lines}:2)"), (export, f"({export}: trace 2)")):
        with pytest.warns(TraceReadWarning, match="'observations' is int"):
            found = samples_from_traces(path, kind="langfuse")
        assert [s.id for s in found.samples] == ["lf-1"]
        assert found.skipped == {UNREADABLE_TRACE: 1}
        assert f"trace lf-bad {where}: 'observations' is int" in found.tally.where(UNREADABLE_TRACE)


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    offline_judge_or_skip()
    from veracity.cli.common import err_console, out_console

    monkeypatch.setattr(out_console, "_width", 250)
    monkeypatch.setattr(err_console, "_width", 250)
    return CliRunner()


def test_veracity_run_evaluates_the_good_traces_of_a_hostile_file(
    cli: CliRunner, tmp_path: Path
) -> None:
    degenerate = _bad(lambda spans: _set(spans, 0, "output.value", "[" * 1_500), "brackets")
    # Each bad trace its own id: the same id would make them one trace.
    bad_lines = [bad.replace('"bad"', f'"bad{i}"') for i, (_, bad, _) in enumerate(SKIPPED)]
    path = _file(tmp_path, _good("g1"), *bad_lines, degenerate, _good("g2"))
    out = tmp_path / "run"
    result = cli.invoke(app, ["run", str(path), "--from", "otlp", "--judge", "offline",
                              "--metrics", "faithfulness", "--out", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    said = " ".join(result.output.split())
    assert "Traceback" not in said
    # Two bad lines (no trace can be told in them) and the other bad traces.
    assert f"{len(SKIPPED) + 1} trace(s) in {path}: 3 sample(s)" in said
    assert f"({UNREADABLE_TRACE}: {len(SKIPPED) - 2}); 2 {UNREADABLE_LINE}(s) skipped" in said
    assert f"{path}:2: not JSON that can be read (nested too deep)" in said
    assert f"trace bad2 ({path}:4): span 'retrieve': startTimeUnixNano" in said
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(row["sample_id"] for row in rows) == ["brackets", "g1", "g2"]
    status = {row["sample_id"]: row["status"] for row in rows}
    # The degenerate answer is judged for what it is (it states nothing), not an error.
    assert status == {"g1": "scored", "g2": "scored", "brackets": "no_claims"}, rows
    read = json.loads((out / "run.json").read_text())["settings"]["traces_read"]
    assert read["skipped"] == {UNREADABLE_TRACE: len(SKIPPED) - 2, UNREADABLE_LINE: 2}
    assert (read["traces"], read["samples"]) == (len(SKIPPED) + 1, 3)


def test_veracity_run_from_a_langfuse_export_with_a_bad_trace(
    cli: CliRunner, tmp_path: Path
) -> None:
    path = tmp_path / "lf.json"
    bad = {**langfuse_trace("lf-bad"), "observations": 5}
    path.write_text(json.dumps({"data": [langfuse_trace(), bad]}), encoding="utf-8")
    out = tmp_path / "run"
    result = cli.invoke(app, ["run", str(path), "--from", "langfuse", "--judge", "offline",
                              "--metrics", "faithfulness", "--out", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "2 trace(s)" in said and "1 sample(s)" in said and "Traceback" not in said
    assert f"trace lf-bad ({path}: trace 2): 'observations' is int, not a list" in said


def test_a_file_with_nothing_readable_exits_2_naming_it(cli: CliRunner, tmp_path: Path) -> None:
    path = _file(tmp_path, '{"resourceSpans": [' + "[" * 1_000 + "]" * 1_000 + "]}")
    result = cli.invoke(app, ["run", str(path), "--from", "otlp", "--judge", "offline",
                              "--out", str(tmp_path / "run")])  # fmt: skip
    assert result.exit_code == 2
    assert f"{path}:1: not JSON that can be read" in " ".join(result.output.split())
    assert not (tmp_path / "run" / "run.json").exists()


def test_a_langfuse_servers_degenerate_output_is_text_not_a_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("langfuse")
    from tests.traces.fake_langfuse import PUBLIC, SECRET, FakeLangfuse, serving
    from tests.traces.test_langfuse_api import observations

    monkeypatch.setenv("LANGFUSE_PUBLIC_KEY", PUBLIC)
    monkeypatch.setenv("LANGFUSE_SECRET_KEY", SECRET)
    degenerate = observations("t2")
    degenerate[0]["output"] = "[" * 1_500  # the API's JSON text, too deep to be JSON
    with serving(FakeLangfuse(observations("t1") + degenerate)) as url:
        found = samples_from_traces(url, kind="langfuse")
    assert {s.id: s.answer for s in found.samples}["t2"] == "[" * 1_500
    assert [s.id for s in found.samples] == ["t1", "t2"]
