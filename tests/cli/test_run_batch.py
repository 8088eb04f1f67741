"""``veracity run --batch`` and ``veracity estimate --batch`` against the fake server's
batch endpoints: a run killed (a subprocess) while its batch is processed resumes polling
that batch, and never creates it again."""

from __future__ import annotations

import json
import signal
import sqlite3
import time
from pathlib import Path
from typing import Any

from tests.in_process import veracity
from tests.store.runs import run, start_run, write_dataset
from veracity.testing import FakeLLMServer

COMPARED = ("sample_id", "system", "metric", "iteration", "score", "status", "details")


def comparable(out: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return [{key: row[key] for key in COMPARED} for row in rows]


def _config(tmp_path: Path) -> Path:
    config = tmp_path / "veracity.yaml"
    config.write_text("batch_poll_s: 0.05\n")
    return config


def _batches_recorded(ledger: Path) -> int:
    if not ledger.exists():
        return 0
    try:
        with sqlite3.connect(ledger) as db:
            (count,) = db.execute("SELECT COUNT(*) FROM batches").fetchone()
    except sqlite3.Error:
        return 0
    return int(count)


def test_a_run_killed_while_waiting_resumes_polling_its_batch(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", 6)
    flags = ("--batch", "--no-cache", "--config", str(_config(tmp_path)))
    with FakeLLMServer() as server:
        done = run(dataset, tmp_path / "live", server.base_url, tmp_path / "c", "--no-cache")
        assert done.returncode == 0, done.stderr
        live_completions = server.stats.completions
        server.reset_stats()

        out = tmp_path / "batched"
        server.batches.delay_s = 3.0  # the first batch is still being processed at the kill
        proc = start_run(dataset, out, server.base_url, tmp_path / "c", *flags)
        deadline = time.monotonic() + 60
        while _batches_recorded(out / "batches.sqlite3") == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert server.batches_created == 1
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)

        server.batches.delay_s = 0.0
        final = run(dataset, out, server.base_url, tmp_path / "c", *flags)
        assert final.returncode == 0, final.stderr
        # The killed run's batch polled again, not created again: two phases, two batches.
        assert server.batches_created == 2
        assert server.stats.completions == live_completions

    assert comparable(out) == comparable(tmp_path / "live")
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["status"] == "completed"
    assert manifest["settings"]["batch"] is True
    assert not (out / "batches.sqlite3").exists()


def test_an_endpoint_without_batches_exits_2_saying_so(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", 2)
    with FakeLLMServer() as server:
        server.batches.available = False
        done = run(dataset, tmp_path / "out", server.base_url, tmp_path / "c", "--batch")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "cannot create a batch" in done.stderr and "without --batch" in done.stderr


def test_estimate_shows_the_live_and_the_batch_cost(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", 4)
    done = veracity("estimate", str(dataset), "--judge", "openai/gpt-4o-mini", "--batch")
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stdout.splitlines() if x.strip().startswith("cost"))
    live, batch = (float(part.split("$")[1].split()[0]) for part in line.split("·"))
    assert "with --batch" in line
    assert live > 0 and abs(batch - live / 2) <= 0.0001
    assert "up to 24 h a phase" in done.stdout


def test_batch_with_a_judge_that_has_no_batch_api_exits_2(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", 2)
    estimated = veracity("estimate", str(dataset), "--judge", "offline", "--batch")
    assert estimated.returncode == 2
    assert "--batch needs an openai/MODEL or anthropic/MODEL judge" in estimated.stderr
