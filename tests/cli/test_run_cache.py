"""``veracity run`` and its response cache: a damaged cache file never stops a run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from veracity.testing import FakeLLMServer

ROWS = [
    {
        "id": "q1",
        "question": "Where is the Eiffel Tower?",
        "contexts": ["The Eiffel Tower is a wrought-iron tower in Paris, France."],
        "answer": "The Eiffel Tower is in Paris.",
    },
]


def run(
    dataset: Path, out: Path, server: FakeLLMServer, cache: Path
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "ANTHROPIC"))}
    env["VERACITY_CACHE"] = str(cache)
    return subprocess.run(
        [sys.executable, "-m", "veracity", "run", str(dataset), "--judge", "openai/m",
         "--base-url", server.base_url, "--out", str(out)],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip


def test_a_damaged_cache_is_set_aside_with_a_warning_and_rebuilt(tmp_path: Path) -> None:
    dataset = tmp_path / "data.jsonl"
    dataset.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    cache = tmp_path / "responses.sqlite3"
    cache.write_bytes(b"\x00garbage, not SQLite" * 512)
    with FakeLLMServer() as server:
        first = run(dataset, tmp_path / "a", server, cache)
        calls = server.stats.completions
        second = run(dataset, tmp_path / "b", server, cache)
        assert server.stats.completions == calls  # the rebuilt cache served every reply
    assert first.returncode == 0, first.stderr
    assert "Traceback" not in first.stderr
    assert "warning:" in first.stderr and str(cache) in first.stderr
    assert "set aside" in first.stderr
    assert second.returncode == 0, second.stderr
    assert "warning" not in second.stderr
    assert [p.name for p in tmp_path.glob("responses.sqlite3.corrupt-*")]
