"""The response cache's bound: least recently used replies go first, never those of a run
in progress (this process's or another's), and a cache hit writes nothing at once."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from veracity import EvaluationResult, evaluate
from veracity.chat import ChatReply, OpenAIChat
from veracity.chat.cache import (
    DEFAULT_MAX_BYTES,
    FLUSH_EVERY,
    FLUSH_INTERVAL_S,
    CacheOverBoundWarning,
    ResponseCache,
    cache_max_bytes,
)
from veracity.chat.cache_upkeep import STALE_SESSION_S
from veracity.config import RunConfig
from veracity.judges import LLMJudge
from veracity.testing import FakeLLMServer
from veracity.types import Usage


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def reply(text: str) -> ChatReply:
    return ChatReply(text=text, usage=Usage(calls=1), latency_s=0.0, model="m")


def fill(path: Path, clock: Clock, keys: list[str], max_bytes: int | None = None) -> None:
    """One session writing ``keys`` (a second apart), then closing."""
    cache = ResponseCache(path, clock=clock, max_bytes=max_bytes)
    for key in keys:
        clock.now += 1
        cache.put(key, reply("x" * 1000))
    cache.close()


def keys_in(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        return {key for (key,) in db.execute("SELECT key FROM replies")}


def row_size(path: Path) -> int:
    cache = ResponseCache(path)
    stats = cache.stats()
    cache.close()
    return stats.bytes // stats.entries


def test_the_least_recently_used_replies_go_first(tmp_path: Path) -> None:
    path, clock = tmp_path / "c.sqlite3", Clock()
    fill(path, clock, [f"k{i}" for i in range(10)])
    clock.now += 100
    reader = ResponseCache(path, clock=clock)
    for i in range(5):  # used again: now the most recently used
        assert reader.get(f"k{i}") is not None
    reader.close()
    clock.now += 100
    bound = 5 * row_size(path)
    ResponseCache(path, clock=clock, max_bytes=bound).close()  # evicts on opening
    assert keys_in(path) == {f"k{i}" for i in range(5)}


def test_a_run_keeps_every_reply_it_wrote_and_the_older_ones_make_room(tmp_path: Path) -> None:
    path, clock = tmp_path / "c.sqlite3", Clock()
    fill(path, clock, [f"old{i}" for i in range(10)])
    bound = 6 * row_size(path)
    clock.now += 100
    run = ResponseCache(path, clock=clock, max_bytes=bound)
    with pytest.warns(CacheOverBoundWarning, match="runs in progress take"):
        for i in range(8):  # more than the bound: its own replies stay all the same
            clock.now += 1
            run.put(f"new{i}", reply("y" * 1000))
    run.close()
    assert keys_in(path) == {f"new{i}" for i in range(8)}


def test_a_finished_run_run_again_makes_no_call_when_it_fits_the_bound(tmp_path: Path) -> None:
    samples = [
        {"id": f"s{i}", "question": "Where?", "contexts": [f"Fact {i} is in Paris."],
         "answer": f"Fact {i} is in Paris."}
        for i in range(6)
    ]  # fmt: skip
    path, scratch, clock = tmp_path / "c.sqlite3", tmp_path / "scratch.sqlite3", Clock()
    with FakeLLMServer() as server:

        def run(cache: Path, bound: int | None) -> EvaluationResult:
            judge = LLMJudge(OpenAIChat("m", base_url=server.base_url, api_key="k"))
            size = "none" if bound is None else bound
            return evaluate(
                samples, "faithfulness", judge, config=RunConfig(cache=cache, cache_max_size=size)
            )

        run(scratch, None)
        measured = ResponseCache(scratch)
        own = measured.stats().bytes  # what this run's replies take
        measured.close()
        old = [f"old{i}" for i in range(2 * own // 1000)]
        fill(path, clock, old)  # an earlier run's replies
        bound = own * 3 // 2  # room for this run's replies, not for the earlier run's too
        first = run(path, bound)
        asked = server.stats.completions
        again = run(path, bound)
        assert server.stats.completions == asked  # every reply came from the cache
    assert [r.score for r in again.results] == [r.score for r in first.results]
    cache = ResponseCache(path)
    assert own <= cache.stats().bytes <= bound
    cache.close()
    assert 0 < len(keys_in(path) & set(old)) < len(old) // 2  # the oldest made room


def test_another_process_in_progress_keeps_its_replies(tmp_path: Path) -> None:
    path, clock = tmp_path / "c.sqlite3", Clock()
    fill(path, clock, [f"old{i}" for i in range(4)])
    bound = 3 * row_size(path)
    clock.now += 1
    long_run = ResponseCache(path, clock=clock)  # started first, still going
    clock.now += 1
    long_run.put("long0", reply("z" * 1000))
    clock.now += 100
    fill(path, clock, ["short0"], max_bytes=bound)  # starts later, evicts when it ends
    assert keys_in(path) == {"long0", "short0"}  # the older replies went, not long0
    long_run.close()


def test_a_process_gone_without_closing_stops_protecting_its_replies(tmp_path: Path) -> None:
    path, clock = tmp_path / "c.sqlite3", Clock()
    killed = ResponseCache(path, clock=clock)
    clock.now += 1
    killed.put("orphan", reply("z" * 1000))  # never closed: its session row stays behind
    clock.now += STALE_SESSION_S + 1
    bound = row_size(path)
    fill(path, clock, ["fresh"], max_bytes=bound)
    assert keys_in(path) == {"fresh"}


def test_a_cache_hit_writes_its_last_use_only_in_a_batch(tmp_path: Path) -> None:
    path, clock = tmp_path / "c.sqlite3", Clock()
    fill(path, clock, ["k"])
    written = clock.now

    def last_use() -> float:
        with sqlite3.connect(path) as db:
            ((used,),) = db.execute("SELECT used_at FROM replies WHERE key = 'k'")
        return float(used)

    clock.now += 10
    cache = ResponseCache(path, clock=clock)
    for _ in range(FLUSH_EVERY - 1):
        assert cache.get("k") is not None
    assert last_use() == written  # no write a hit
    clock.now += FLUSH_INTERVAL_S
    assert cache.get("k") is not None  # a minute on: written now, with the others
    assert last_use() == clock.now
    cache.close()


def test_an_earlier_version_s_cache_is_sized_and_dated_on_opening(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE replies (key TEXT PRIMARY KEY, text TEXT NOT NULL, model TEXT NOT "
            "NULL, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL)"
        )
        db.execute("INSERT INTO replies VALUES ('k', ?, 'gpt-x', 1, 1)", ("x" * 500,))
    clock = Clock()
    cache = ResponseCache(path, clock=clock)
    stats = cache.stats()
    assert stats.entries == 1 and stats.bytes > 500
    assert stats.first_written == stats.least_recently_used == clock.now
    assert [(s.judge, s.model) for s in stats.by_model] == [("", "gpt-x")]
    assert cache.get("k") is not None
    cache.close()


def test_the_bound_comes_from_the_argument_else_the_environment_else_1_gib(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("VERACITY_CACHE_MAX_SIZE", raising=False)
    assert cache_max_bytes() == DEFAULT_MAX_BYTES == 1024**3
    monkeypatch.setenv("VERACITY_CACHE_MAX_SIZE", "500MB")
    assert cache_max_bytes() == 500_000_000
    assert cache_max_bytes("2GiB") == 2 * 1024**3
    assert cache_max_bytes(4096) == 4096
    assert cache_max_bytes("none") is None
    monkeypatch.setenv("VERACITY_CACHE_MAX_SIZE", "big")
    with pytest.raises(ValueError, match="VERACITY_CACHE_MAX_SIZE: bad size 'big'"):
        cache_max_bytes()


WRITER = """
import sys, time
from pathlib import Path
from veracity.chat.base import ChatReply
from veracity.chat.cache import ResponseCache
from veracity.testing import FakeLLMServer
from veracity.types import Usage

cache = ResponseCache(Path(sys.argv[1]), max_bytes=int(sys.argv[3]))
for i in range(300):
    key = f"{sys.argv[2]}{i}"
    cache.put(key, ChatReply(text="w" * 2000, usage=Usage(calls=1), latency_s=0.0, model="m"))
    assert cache.get(key) is not None
cache.close()
"""


def test_two_processes_writing_and_evicting_at_once_leave_a_sound_file(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    bound = 150 * 2300  # room for half of one process's replies: eviction all along
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), name, str(bound)],
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("a", "b")
    ]
    for writer in writers:
        _, stderr = writer.communicate(timeout=120)
        assert writer.returncode == 0, stderr
        assert "Traceback" not in stderr
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        ((sessions,),) = db.execute("SELECT count(*) FROM sessions")
    assert sessions == 0  # each process said goodbye
    cache = ResponseCache(path, max_bytes=bound)  # nobody running now: back within the bound
    assert cache.stats().bytes <= bound
    cache.close()
