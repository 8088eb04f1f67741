"""``veracity run`` and its response cache: a damaged cache file never stops a run."""

from __future__ import annotations

import json
from pathlib import Path

from tests.in_process import Completed, veracity
from veracity.testing import FakeLLMServer

ROWS = [
    {
        "id": "q1",
        "question": "Where is the Eiffel Tower?",
        "contexts": ["The Eiffel Tower is a wrought-iron tower in Paris, France."],
        "answer": "The Eiffel Tower is in Paris.",
    },
]


def run(dataset: Path, out: Path, server: FakeLLMServer, cache: Path, *args: str) -> Completed:
    return veracity(
        "run", str(dataset), "--judge", "openai/m", "--base-url", server.base_url,
        "--out", str(out), *args, env={"VERACITY_CACHE": str(cache)},
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


def test_cache_max_size_bounds_the_shared_cache(tmp_path: Path) -> None:
    dataset = tmp_path / "data.jsonl"
    dataset.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    cache = tmp_path / "responses.sqlite3"
    with FakeLLMServer() as server:
        tiny = run(dataset, tmp_path / "a", server, cache, "--cache-max-size", "1")
        calls = server.stats.completions
        # Each run keeps its own replies until it ends; the next run's opening evicts them.
        again = run(dataset, tmp_path / "b", server, cache, "--cache-max-size", "1")
        assert server.stats.completions == 2 * calls
        roomy = run(dataset, tmp_path / "c", server, cache)  # the default bound, 1 GiB
        assert server.stats.completions == 2 * calls  # the replies of "b" stayed
    assert tiny.returncode == again.returncode == roomy.returncode == 0, tiny.stderr
    assert "warning: the replies of the runs in progress take" in tiny.stderr
    assert "bound of 1 B" in tiny.stderr
