"""Hostile run directories and SQLite files against ``veracity run``: someone else's
files, a bad stored record, foreign databases, file modes."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.in_process import Completed, veracity
from veracity import evaluate
from veracity.config import RunConfig

ROWS = [
    {
        "id": f"s{i}",
        "question": "Where is the tower?",
        "contexts": ["The grey tower is in Paris."],
        "answer": "It is in Paris.",
    }
    for i in range(3)
]


def _dataset(tmp_path: Path) -> Path:
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    return path


def _run(dataset: Path, out: Path, *extra: str) -> Completed:
    return veracity("run", str(dataset), "--judge", "offline", "--out", str(out), *extra)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("name", ["run.json", "summary.json", "results.jsonl"])
def test_a_foreign_run_directory_is_refused(tmp_path: Path, name: str) -> None:
    out = tmp_path / "theirs"
    out.mkdir()
    (out / name).write_text('{"mine": true}\n')
    done = _run(_dataset(tmp_path), out, "--no-cache")
    assert done.returncode == 2, done.stderr
    assert "choose a new --out" in done.stderr and "Traceback" not in done.stderr
    assert (out / name).read_text() == '{"mine": true}\n'
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == [name]


def test_a_bad_stored_record_is_dropped_and_redone(tmp_path: Path) -> None:
    out = tmp_path / "run"
    evaluate(ROWS, "faithfulness", config=RunConfig(cache=False), judge="offline", out=out)
    with sqlite3.connect(out / "veracity.sqlite3") as db:
        db.execute("UPDATE results SET record = ? WHERE sample_id = 's1'", ('{"score": 7}',))
    db.close()
    with pytest.warns(UserWarning, match="1 stored result"):
        result = evaluate(
            ROWS, "faithfulness", config=RunConfig(cache=False), judge="offline", out=out
        )
    assert len(result.results) == 3
    assert json.loads((out / "run.json").read_text())["status"] == "completed"
    lines = (out / "results.jsonl").read_text().splitlines()
    assert sorted(json.loads(line)["sample_id"] for line in lines) == ["s0", "s1", "s2"]


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_run_files_follow_the_umask(tmp_path: Path, umask_022: None) -> None:
    out = tmp_path / "run"
    done = _run(_dataset(tmp_path), out, "--no-cache", "--html")
    assert done.returncode == 0, done.stderr
    for name in ("run.json", "results.jsonl", "summary.json", "veracity.sqlite3", "report.html"):
        assert stat.S_IMODE((out / name).stat().st_mode) == 0o644, name


def _foreign_db(path: Path) -> str:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE people (name TEXT)")
        db.execute("INSERT INTO people VALUES ('ada')")
    db.close()
    return _digest(path)


def test_a_foreign_sqlite_run_store_is_left_alone(tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    before = _foreign_db(out / "veracity.sqlite3")
    done = _run(_dataset(tmp_path), out, "--no-cache")
    assert done.returncode == 2, done.stderr
    assert "not a veracity" in done.stderr and "free some space" not in done.stderr
    assert _digest(out / "veracity.sqlite3") == before
    assert not (out / "veracity.sqlite3-wal").exists()


def test_a_foreign_sqlite_cache_is_left_alone(tmp_path: Path) -> None:
    from veracity.chat.cache import ResponseCache, ResponseCacheError

    cache = tmp_path / "theirs.db"
    before = _foreign_db(cache)
    with pytest.raises(ResponseCacheError, match="not a veracity") as raised:
        ResponseCache(cache)
    assert "free some space" not in str(raised.value)
    assert _digest(cache) == before
    assert not Path(f"{cache}-wal").exists()
