"""Runs that survive: SIGKILL at random moments, resume, and the same results in the end."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.store.runs import run, start_run, write_dataset
from veracity.chat.cache import ResponseCache
from veracity.store import RunDirectory, RunDirectoryError
from veracity.testing import FakeLLMServer

# What must agree between two runs of the same data; latency and where a reply came from
# (the endpoint or the cache) may differ.
COMPARED = ("sample_id", "system", "metric", "iteration", "score", "status", "reason", "details")
KILLABLE = ("--concurrency", "4", "--iterations", "2")


def comparable(out: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return [{key: row[key] for key in COMPARED} for row in rows]


def uninterrupted(dataset: Path, out: Path, cache: Path, *flags: str) -> int:
    """The run of ``dataset`` from start to end, in-process and on a server of its own without
    latency: what the killed runs must come to; its calls to the judge."""
    with FakeLLMServer() as server:
        done = run(dataset, out, server.base_url, cache, *flags)
        assert done.returncode == 0, done.stderr
        return server.stats.completions


def kill_after(proc: subprocess.Popen[str], server: FakeLLMServer, calls: int) -> bool:
    """SIGKILL the run ``proc`` once ``server`` has answered ``calls`` more requests (so
    the kill lands at that point of the run however long the process took to start);
    False if the run ended first."""
    target = server.stats.completions + calls
    deadline = time.monotonic() + 60
    while server.stats.completions < target:
        if proc.poll() is not None:
            return False
        assert time.monotonic() < deadline, "the run made no progress in 60 s"
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    time.sleep(0.4)  # let the server finish what the killed run had asked
    return True


def test_killed_runs_resume_to_the_uninterrupted_result(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", 24)
    baseline_calls = uninterrupted(dataset, tmp_path / "baseline", tmp_path / "cache-a", *KILLABLE)

    rng = random.Random(20261122)
    out, cache = tmp_path / "killed", tmp_path / "cache-b"
    with FakeLLMServer(latency_s=0.05) as server:
        lost_in_flight = 0
        for _ in range(3):
            proc = start_run(dataset, out, server.base_url, cache, *KILLABLE)
            # A random moment of the run: after 1 to 40 of its replies (of 144 in all).
            if not kill_after(proc, server, rng.randint(1, 40)):
                break
            # In flight at the kill, as the client saw it: asked, but no reply recorded.
            lost = server.stats.completions - lost_in_flight - len(ResponseCache(cache))
            assert 0 <= lost <= 4  # never more than --concurrency
            lost_in_flight += lost
        final = run(dataset, out, server.base_url, cache, *KILLABLE)
        assert final.returncode == 0, final.stderr
        killed_calls = server.stats.completions

    assert comparable(out) == comparable(tmp_path / "baseline")
    assert killed_calls <= baseline_calls + lost_in_flight
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["status"] == "completed"


def test_a_killed_run_without_the_cache_repeats_only_the_calls_in_flight(
    tmp_path: Path,
) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", 24)
    cache, flags = tmp_path / "cache", (*KILLABLE, "--no-cache")
    baseline_calls = uninterrupted(dataset, tmp_path / "baseline", cache, *flags)
    # Slow verifications: at any moment many samples have their claims and wait for them.
    with FakeLLMServer(latency_s=lambda r: 0.3 if "<claims>" in r.first_user else 0.05) as server:
        out = tmp_path / "killed"
        proc = start_run(dataset, out, server.base_url, cache, *flags)
        # Killed a third of the way: many samples finished, many half-judged.
        assert kill_after(proc, server, baseline_calls // 3)
        final = run(dataset, out, server.base_url, cache, *flags)
        assert final.returncode == 0, final.stderr
        repeated = server.stats.completions - baseline_calls

    assert 0 <= repeated <= 4  # never more than --concurrency: the calls in flight
    assert comparable(out) == comparable(tmp_path / "baseline")
    assert not cache.exists()  # --no-cache: the shared cache is never touched
    assert not (out / "replies.sqlite3").exists()  # the run's own replies: until it ends


def test_a_finished_run_run_again_makes_no_call(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", 5)
    with FakeLLMServer() as server:
        first = run(dataset, tmp_path / "run", server.base_url, tmp_path / "cache", *KILLABLE)
        assert first.returncode == 0
        calls = server.stats.completions
        assert calls > 0
        again = run(dataset, tmp_path / "run", server.base_url, tmp_path / "cache", *KILLABLE)
        assert again.returncode == 0  # resumed
        elsewhere = run(
            dataset, tmp_path / "other", server.base_url, tmp_path / "cache", *KILLABLE
        )  # cache
        assert elsewhere.returncode == 0
        assert server.stats.completions == calls
    assert comparable(tmp_path / "other") == comparable(tmp_path / "run")
    summary = json.loads((tmp_path / "other" / "summary.json").read_text())
    assert summary["usage"]["calls"] == 0
    assert summary["usage"]["cached_calls"] == calls


def test_two_runs_cannot_write_one_directory(tmp_path: Path) -> None:
    manifest = {"dataset": {"sha256": "x"}, "judge": {"name": "j", "prompts": {}}}
    first = RunDirectory(tmp_path / "run")
    first.open(manifest)
    with pytest.raises(RunDirectoryError, match="another veracity run"):
        RunDirectory(tmp_path / "run").open(manifest)
    first.close()
    second = RunDirectory(tmp_path / "run")
    second.open(manifest)  # free again once the first is closed
    second.close()


def test_a_run_of_other_data_is_not_resumed_into(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", 3)
    lines = dataset.read_text().splitlines(keepends=True)
    other = tmp_path / "other.jsonl"
    other.write_text(lines[1] + lines[0] + lines[2])  # the same rows, in another order
    with FakeLLMServer() as server:
        first = run(dataset, tmp_path / "run", server.base_url, tmp_path / "c", *KILLABLE)
        assert first.returncode == 0
        second = run(other, tmp_path / "run", server.base_url, tmp_path / "c", *KILLABLE)
    assert second.returncode == 2
    assert "different dataset sha256" in second.stderr


def test_rows_appended_to_the_dataset_are_all_a_rerun_judges(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", 3)
    lines = dataset.read_text().splitlines(keepends=True)
    dataset.write_text("".join(lines[:2]))
    with FakeLLMServer() as server:
        first = run(dataset, tmp_path / "run", server.base_url, tmp_path / "c")
        assert first.returncode == 0
        first_calls = server.stats.completions
        server.reset_stats()
        with dataset.open("a") as f:
            f.write(lines[2])
        done = run(dataset, tmp_path / "run", server.base_url, tmp_path / "c2")
        assert done.returncode == 0, done.stderr
        assert 0 < server.stats.completions < first_calls  # the new sample only
    rows = [
        json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()
    ]
    assert len({row["sample_id"] for row in rows}) == 3
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert [a["results_resumed"] for a in manifest["attempts"]] == [0, len(rows) * 2 // 3]
    assert manifest["dataset"]["bytes"] == dataset.stat().st_size


def test_a_last_row_changed_by_appending_to_it_is_not_resumed_into(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", 2)
    dataset.write_bytes(dataset.read_bytes().rstrip(b"\n"))  # no newline after the last row
    with FakeLLMServer() as server:
        first = run(dataset, tmp_path / "run", server.base_url, tmp_path / "c")
        assert first.returncode == 0
        with dataset.open("ab") as f:  # the bytes before are kept, but the last row changes
            f.write(b'  , "junk": 1}\n')
        second = run(dataset, tmp_path / "run", server.base_url, tmp_path / "c")
    assert second.returncode == 2
    assert "different dataset sha256" in second.stderr
