"""A run directory across attempts: resumed whenever the earlier one stopped, with live
files while it runs, no temporary file left behind, and the history of its attempts."""

from __future__ import annotations

import json
import signal
import socket
import sqlite3
import time
from pathlib import Path

import pytest

from tests.in_process import veracity
from tests.report.factory import rec
from tests.store.runs import manifest, result_lines, run, start_run, write_dataset
from veracity.report.load import unfinished
from veracity.store import RunDirectory, RunDirectoryError, read_results
from veracity.testing import FakeLLMServer

SAME_RUN = {"dataset": {"sha256": "x"}, "judge": {"name": "j", "prompts": {}}}


def unreachable_url() -> str:
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}/v1"


@pytest.mark.parametrize("resume", [(), ("--resume",)], ids=["rerun", "resume"])
def test_a_run_stopped_before_any_result_is_resumed(
    tmp_path: Path, resume: tuple[str, ...]
) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", 3)
    out = tmp_path / "run"
    down = run(dataset, out, unreachable_url(), tmp_path / "cache")
    assert down.returncode == 2, down.stderr
    assert "cannot connect" in down.stderr

    with FakeLLMServer() as server:
        again = run(dataset, out, server.base_url, tmp_path / "cache", *resume)
    assert again.returncode == 0, again.stderr
    assert len(result_lines(out)) == 3 * 2
    attempts = manifest(out)["attempts"]
    assert [a["status"] for a in attempts] == ["failed", "completed"]
    assert [a["results_new"] for a in attempts] == [0, 6]


def test_a_killed_run_has_live_files_is_reported_and_resumed(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", 20)
    out = tmp_path / "run"
    with FakeLLMServer(latency_s=0.1) as server:
        proc = start_run(dataset, out, server.base_url, tmp_path / "cache", "--concurrency", "2")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
            if (out / "run.json").exists() and manifest(out).get("results", 0) >= 10:
                break
        assert proc.poll() is None, "the run ended before it could be killed"
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)

        with sqlite3.connect(out / "veracity.sqlite3") as db:
            (stored,) = db.execute("SELECT COUNT(*) FROM results").fetchone()
        killed = manifest(out)
        lines = result_lines(out)
        # Every line appended so far is a whole result the store holds.
        assert 10 <= len(lines) <= stored
        assert killed["status"] == "running"
        assert 10 <= killed["results"] <= stored
        assert not (out / "summary.json").exists()

        report = veracity("report", str(out))
        assert report.returncode == 0, report.stderr
        assert "did not finish" in report.stderr
        assert "faithfulness" in report.stdout

        final = run(dataset, out, server.base_url, tmp_path / "cache", "--concurrency", "2")
    assert final.returncode == 0, final.stderr
    assert f"resumed: {stored} result(s)" in final.stdout
    assert len(result_lines(out)) == 20 * 2
    done = manifest(out)
    first, second = done["attempts"]
    assert first["status"] == "killed" and first["results_new"] == stored
    assert second["status"] == "completed" and second["results_resumed"] == stored
    assert second["results_new"] == 40 - stored
    assert done["started_at"] == first["started_at"] == killed["started_at"]
    assert done["status"] == "completed" and done["results"] == 40


def test_a_rerun_with_fewer_metrics_keeps_the_manifest_true_to_the_results(
    tmp_path: Path,
) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", 3)
    out = tmp_path / "run"
    with FakeLLMServer() as server:
        assert run(dataset, out, server.base_url, tmp_path / "c").returncode == 0
        first = manifest(out)
        fewer = run(dataset, out, server.base_url, tmp_path / "c", "--metrics", "faithfulness")
    assert fewer.returncode == 0, fewer.stderr
    assert "resumed: 6 result(s)" in fewer.stdout
    again = manifest(out)
    assert again["metrics"] == ["faithfulness", "context_recall"]
    assert {row["metric"] for row in result_lines(out)} == {"faithfulness", "context_recall"}
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["metrics"]) == {"faithfulness", "context_recall"}
    assert again["started_at"] == first["started_at"]
    attempts = again["attempts"]
    assert [a["metrics"] for a in attempts] == [
        ["faithfulness", "context_recall"],
        ["faithfulness"],
    ]
    assert [a["results_new"] for a in attempts] == [6, 0]
    assert attempts[0]["started_at"] == first["started_at"]
    assert all(a["veracity_version"] and a["finished_at"] for a in attempts)


def test_temporary_files_of_a_killed_write_are_removed_on_open(tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = RunDirectory(out)
    first.open(SAME_RUN)
    first.close()
    left = [out / ".results.jsonl.k2j4x.tmp", out / ".run.json.a8f1q.tmp",
            out / ".summary.json.zz9.tmp", out / ".report.html.q0w.tmp"]  # fmt: skip
    for path in left:
        path.write_text("half")
    unrelated = out / ".notes.tmp"
    unrelated.write_text("the user's")
    again = RunDirectory(out)
    again.open(SAME_RUN)
    again.close()
    assert not any(path.exists() for path in left)
    assert unrelated.read_text() == "the user's"


def test_a_corrupt_store_is_named_and_the_directory_stays_free(tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / "veracity.sqlite3").write_bytes(b"this is not a database\n" * 200)
    with pytest.raises(RunDirectoryError, match="is damaged") as raised:
        RunDirectory(out).open(SAME_RUN)
    assert str(out / "veracity.sqlite3") in str(raised.value)
    (out / "veracity.sqlite3").unlink()
    fresh = RunDirectory(out)  # the lock was released
    fresh.open(SAME_RUN)
    fresh.close()


def test_a_corrupt_store_exits_2_with_a_message(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", 2)
    out = tmp_path / "run"
    with FakeLLMServer() as server:
        assert run(dataset, out, server.base_url, tmp_path / "c").returncode == 0
        store = out / "veracity.sqlite3"
        store.write_bytes(store.read_bytes()[:100] + b"\x00garbage" * 500)
        for name in ("veracity.sqlite3-wal", "veracity.sqlite3-shm"):
            (out / name).unlink(missing_ok=True)
        again = run(dataset, out, server.base_url, tmp_path / "c")
    assert again.returncode == 2, again.stderr
    assert "Traceback" not in again.stderr
    assert "veracity.sqlite3" in again.stderr


def test_resume_takes_a_directory_killed_before_its_manifest(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", 2)
    out = tmp_path / "run"
    assert run(dataset, out, unreachable_url(), tmp_path / "c").returncode == 2
    (out / "run.json").unlink()  # as if killed after the store was made, before run.json
    with FakeLLMServer() as server:
        again = run(dataset, out, server.base_url, tmp_path / "c", "--resume")
    assert again.returncode == 0, again.stderr
    assert len(result_lines(out)) == 4
    assert manifest(out)["status"] == "completed"


def test_results_are_appended_live_and_a_line_cut_off_is_not_read(tmp_path: Path) -> None:
    out = tmp_path / "run"
    store = RunDirectory(out)
    store.open({**SAME_RUN, "metrics": ["faithfulness"]})
    store.add(rec(1.0, sample_id="a"), 0)
    store.add(rec(0.5, sample_id="b"), 1)
    # On disk while the run is still open, as a reader (veracity report) sees it.
    assert [r.sample_id for r in read_results(out)] == ["a", "b"]
    store.close()
    whole = (out / "results.jsonl").read_text()
    (out / "results.jsonl").write_text(whole + whole.splitlines()[0][:40])  # a kill mid-line
    assert [r.sample_id for r in read_results(out)] == ["a", "b"]
    (out / "results.jsonl").write_text(whole.rstrip("\n"))  # a last line without newline
    assert [r.sample_id for r in read_results(out)] == ["a", "b"]
    (out / "results.jsonl").write_text(whole.splitlines()[0][:40] + "\n" + whole)
    with pytest.raises(ValueError):  # a broken line inside the file is an error
        list(read_results(out))


def test_a_report_tells_a_running_run_from_a_killed_one(tmp_path: Path) -> None:
    out = tmp_path / "run"
    store = RunDirectory(out)
    store.open(SAME_RUN)
    assert "still running" in (unfinished(out) or "")
    store.close()  # without an end: what a killed process leaves
    assert "did not finish" in (unfinished(out) or "")
    again = RunDirectory(out)
    again.open(SAME_RUN)
    again.export({}, status="completed")
    again.close()
    assert unfinished(out) is None
    assert [a["status"] for a in manifest(out)["attempts"]] == ["killed", "completed"]
