"""Ctrl-C during ``veracity run``: exit 130, the results kept, and a message saying so."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

from tests.in_process import veracity
from veracity.testing import FakeLLMServer

SAMPLES = 20


def committed(run_dir: Path) -> int:
    """The results the run has committed so far (0 before its store exists)."""
    try:
        with closing(
            sqlite3.connect(f"file:{run_dir / 'veracity.sqlite3'}?mode=ro", uri=True)
        ) as db:
            return int(db.execute("SELECT COUNT(*) FROM results").fetchone()[0])
    except sqlite3.Error:
        return 0


def test_ctrl_c_keeps_the_results_says_so_and_exits_130(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"q{i}",
                    "question": "Where is the Eiffel Tower?",
                    "contexts": ["The Eiffel Tower is a wrought-iron tower in Paris, France."],
                    # Each answer its own: the same prompt in flight is asked only once.
                    "answer": f"The Eiffel Tower is in Paris ({i}).",
                }
            )
            + "\n"
            for i in range(SAMPLES)
        )
    )
    out = tmp_path / "run"
    args = ["run", str(data), "--judge", "openai/m", "--out", str(out), "--no-cache"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "ANTHROPIC"))}
    with FakeLLMServer(latency_s=0.3) as server:
        proc = subprocess.Popen(
            [sys.executable, "-m", "veracity", *args, "--base-url", server.base_url,
             "--concurrency", "2"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**env, "OPENAI_API_KEY": "sk-test"},
        )  # fmt: skip
        deadline = time.monotonic() + 60
        # Judging, with a few samples done: the interrupt lands in the middle of the run.
        while committed(out) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert f"interrupted; every result finished so far is kept in {out}" in stderr
    assert "--resume" in stderr and "Traceback" not in stderr
    assert json.loads((out / "run.json").read_text())["status"] == "interrupted"
    kept = committed(out)
    assert 2 <= kept < SAMPLES

    with FakeLLMServer() as server:
        resumed = veracity(*args, "--base-url", server.base_url, env={"OPENAI_API_KEY": "k"})
        requests = server.stats.requests
    assert resumed.returncode == 0, resumed.stderr
    # Only the samples not finished before Ctrl-C are judged, two calls each at most: a
    # reply received before it is kept in the run directory (--no-cache), not asked again.
    assert requests <= 2 * (SAMPLES - kept)
    assert len((out / "results.jsonl").read_text().splitlines()) == SAMPLES
