"""A run directory that cannot be written: a file in the way, a read-only or a full disk.
Each ends with a message naming the path and exit 2, and keeps what was computed."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.cli.test_interrupt import committed
from tests.in_process import Completed, veracity
from veracity.testing import FakeLLMServer

SAMPLES = 40


def dataset(path: Path) -> Path:
    row = {
        "question": "Where is the Eiffel Tower?",
        "contexts": ["The Eiffel Tower is a wrought-iron tower in Paris, France."],
        "answer": "The Eiffel Tower is in Paris.",
    }
    path.write_text("".join(json.dumps({"id": f"q{i}", **row}) + "\n" for i in range(SAMPLES)))
    return path


def run(
    data: Path,
    out: Path,
    cache: Path | None = None,
    preexec_fn: Callable[[], object] | None = None,
) -> Completed | subprocess.CompletedProcess[str]:
    """``veracity run`` (without the response cache unless ``cache`` is its file): in a
    process of its own when ``preexec_fn`` is to run in it before it starts (a limit on
    the file size), else in-process."""
    env = {"OPENAI_API_KEY": "sk-test"} | ({} if cache is None else {"VERACITY_CACHE": str(cache)})
    with FakeLLMServer() as server:
        args = ["run", str(data), "--judge", "openai/m", "--base-url", server.base_url,
                "--out", str(out), *(["--no-cache"] if cache is None else [])]  # fmt: skip
        if preexec_fn is None:
            return veracity(*args, env=env)
        inherited = {
            k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "ANTHROPIC"))
        }
        return subprocess.run(
            [sys.executable, "-m", "veracity", *args],
            capture_output=True, text=True, timeout=120, check=False,
            env=inherited | env | {"PYTHONDONTWRITEBYTECODE": "1"}, preexec_fn=preexec_fn,
        )  # fmt: skip


def test_out_pointing_at_a_file_is_refused(tmp_path: Path) -> None:
    a_file = tmp_path / "results"
    a_file.write_text("mine\n")
    proc = run(dataset(tmp_path / "data.jsonl"), a_file)
    assert proc.returncode == 2, proc.stderr
    assert f"cannot use {a_file} as the run directory: {a_file} is a file" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert a_file.read_text() == "mine\n"


def test_out_under_a_file_names_the_file(tmp_path: Path) -> None:
    a_file = tmp_path / "results"
    a_file.write_text("mine\n")
    out = a_file / "runs" / "first"
    proc = run(dataset(tmp_path / "data.jsonl"), out)
    assert proc.returncode == 2, proc.stderr
    assert f"cannot use {out} as the run directory: {a_file} is a file" in proc.stderr
    assert "Traceback" not in proc.stderr


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """``folder`` cannot be written, even by root (where the file system allows it)."""
    as_root = os.geteuid() == 0
    if as_root:
        chattr = shutil.which("chattr")
        if chattr is None or subprocess.run([chattr, "+i", str(folder)], check=False).returncode:
            pytest.skip("root ignores permissions and this file system has no immutable flag")
    else:
        folder.chmod(0o555)
    try:
        yield
    finally:
        if as_root:
            subprocess.run([shutil.which("chattr") or "chattr", "-i", str(folder)], check=True)
        else:
            folder.chmod(0o755)


def test_a_run_directory_on_a_read_only_disk_is_named(tmp_path: Path) -> None:
    data = dataset(tmp_path / "data.jsonl")
    parent = tmp_path / "runs"
    parent.mkdir()
    with read_only(parent):
        proc = run(data, parent / "first")
    assert proc.returncode == 2, proc.stderr
    assert f"cannot use {parent / 'first'} as the run directory: " in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_read_only_response_cache_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    folder.mkdir()
    with read_only(folder):
        proc = run(dataset(tmp_path / "data.jsonl"), tmp_path / "run", folder / "replies.sqlite3")
    assert proc.returncode == 2, proc.stderr
    assert f"cannot write the response cache {folder / 'replies.sqlite3'}: " in proc.stderr
    assert "--no-cache" in proc.stderr and "Traceback" not in proc.stderr


def small_disk() -> None:
    """In the child: writing past 64 KiB into any file fails (EFBIG), as a full disk fails a
    write (ENOSPC); ignoring SIGXFSZ turns the signal into that error."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, resource.RLIM_INFINITY))


def test_a_full_disk_under_the_response_cache_is_named(tmp_path: Path) -> None:
    cache = tmp_path / "replies.sqlite3"
    proc = run(dataset(tmp_path / "data.jsonl"), tmp_path / "run", cache, preexec_fn=small_disk)
    assert proc.returncode == 2, proc.stderr
    assert f"cannot write the response cache {cache}: " in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_full_disk_stops_the_run_keeps_the_results_and_names_the_file(tmp_path: Path) -> None:
    data = dataset(tmp_path / "data.jsonl")
    out = tmp_path / "run"
    proc = run(data, out, preexec_fn=small_disk)
    assert proc.returncode == 2, proc.stderr
    # The store of results, or the run's own replies beside it (--no-cache), fills up first.
    named = (f"{out / 'veracity.sqlite3'}: ", f"{out / 'replies.sqlite3'}: ")
    assert "cannot write" in proc.stderr and any(path in proc.stderr for path in named)
    assert "run the same command again" in proc.stderr and "Traceback" not in proc.stderr
    kept = committed(out)
    assert kept < SAMPLES

    # Space again: the same command goes on from where the disk filled up.
    with FakeLLMServer() as server:
        again = veracity(
            "run", str(data), "--judge", "openai/m", "--base-url", server.base_url,
            "--out", str(out), "--no-cache", env={"OPENAI_API_KEY": "sk-test"},
        )  # fmt: skip
        requests = server.stats.requests
    assert again.returncode == 0, again.stderr
    # What was computed is kept: the results, and the replies of the samples not finished
    # (in the run directory, with --no-cache), which are not asked for again.
    assert requests < 2 * (SAMPLES - kept)
    assert len((out / "results.jsonl").read_text().splitlines()) == SAMPLES
