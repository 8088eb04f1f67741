"""``veracity run`` against inputs and endpoints that try to break it: a base URL or limit
no call can use, a reply that trickles in, an endpoint that echoes the key back."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli.test_run_end_to_end import ROWS, write_dataset
from tests.hostile_endpoint import HostileEndpoint
from tests.in_process import veracity
from veracity.testing import FakeLLMServer

KEY = "hostile-key-0123456789"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rpm", "inf"], "--rpm: Input should be a finite number"),
        (["--timeout", "inf"], "--timeout: Input should be a finite number"),
        (["--timeout", "nan"], "--timeout: Input should be a finite number"),
        (["--rpm", "0"], "--rpm: Input should be greater than 0"),
        (
            ["--base-url", "localhost:8000/v1"],
            "--base-url 'localhost:8000/v1' is not a usable URL: it does not start with http://",
        ),
        (
            ["--base-url", "http://127.0.0.1:99999/v1"],
            "--base-url 'http://127.0.0.1:99999/v1' is not a usable URL: the port must be",
        ),
    ],
)
def test_an_option_no_call_can_use_exits_2_naming_it_before_any_call(
    tmp_path: Path, args: list[str], message: str
) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", ROWS[:1])
    with FakeLLMServer() as server:
        base_url = [] if "--base-url" in args else ["--base-url", server.base_url]
        proc = veracity(
            "run", str(dataset), "--judge", "openai/m", *base_url, *args,
            "--out", str(tmp_path / "run"), env={"OPENAI_API_KEY": KEY},
        )  # fmt: skip
        requests = server.stats.requests
    assert proc.returncode == 2, proc.stderr
    assert message in " ".join(proc.stderr.replace("│", " ").split())
    assert "Traceback" not in proc.stderr
    assert requests == 0
    assert not (tmp_path / "run").exists()


def test_the_same_checks_hold_for_the_testset_command(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text("Paris is the capital of France.")
    proc = veracity(
        "testset", "generate", str(tmp_path / "docs"), "--count", "2", "--judge", "openai/m",
        "--base-url", "localhost:8000/v1", "--out", str(tmp_path / "t.jsonl"),
        env={"OPENAI_API_KEY": KEY},
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "--base-url 'localhost:8000/v1' is not a usable URL" in proc.stderr


@pytest.mark.parametrize(
    ("setting", "key_path"),
    [("rpm: .inf", "rpm"), ("timeout: .inf", "timeout"), ("base_url: localhost:8000", None)],
)
def test_a_config_file_value_no_call_can_use_exits_2_naming_it(
    tmp_path: Path, setting: str, key_path: str | None
) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", ROWS[:1])
    config = tmp_path / "veracity.yaml"
    config.write_text(setting + "\n")
    proc = veracity(
        "run", str(dataset), "--judge", "openai/m", "--config", str(config),
        "--out", str(tmp_path / "run"), env={"OPENAI_API_KEY": KEY},
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    if key_path is not None:
        assert f"veracity.yaml: {key_path}:" in proc.stderr
    else:
        assert "base_url of the config file 'localhost:8000' is not a usable URL" in proc.stderr


def test_a_bad_base_url_in_the_environment_exits_2_naming_the_variable(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", ROWS[:1])
    proc = veracity(
        "run", str(dataset), "--judge", "openai/m", "--out", str(tmp_path / "run"),
        env={"OPENAI_BASE_URL": "localhost:8000/v1"},
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "OPENAI_BASE_URL 'localhost:8000/v1' is not a usable URL" in proc.stderr


@pytest.mark.timeout(60)  # a timeout per read would let the run trickle on for minutes
def test_a_reply_trickling_in_is_cut_off_by_the_timeout_and_the_run_stops(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", ROWS[:3])
    out = tmp_path / "run"
    with HostileEndpoint(every_s=0.2) as endpoint:  # one byte every 0.2 s: each read is quick
        proc = veracity(
            "run", str(dataset), "--judge", "openai/m", "--base-url", endpoint.base_url,
            "--timeout", "1", "--out", str(out),
        )  # fmt: skip
        requests = endpoint.requests
    assert proc.returncode == 2, proc.stderr
    assert "no complete reply within 1 s (3 attempts" in proc.stderr
    assert "may need a longer timeout" in proc.stderr
    assert requests == 3  # the first call's attempts: the run stopped there, not per sample
    assert json.loads((out / "run.json").read_text())["status"] == "failed"


@pytest.mark.parametrize(
    ("status", "echo_first", "where"),
    [
        # Rejects json_schema once: the run steps down, noting why in run.json and the cache.
        (400, 1, "negotiation"),
        # Rejects every mode: judge_error results, in results.jsonl and the store.
        (400, None, "results"),
        # A bad key: the run stops, printing why and recording it in run.json.
        (401, None, "fatal"),
    ],
)
def test_an_endpoint_echoing_the_key_never_gets_it_written_or_printed(
    tmp_path: Path, status: int, echo_first: int | None, where: str
) -> None:
    dataset = write_dataset(tmp_path / "data.jsonl", ROWS[:2])
    out = tmp_path / "run"
    with HostileEndpoint(echo_status=status, echo_first=echo_first, every_s=0) as endpoint:
        proc = veracity(
            "run", str(dataset), "--judge", "openai/m", "--base-url", endpoint.base_url,
            "--out", str(out), env={"OPENAI_API_KEY": KEY},
        )  # fmt: skip
    assert "Traceback" not in proc.stderr
    cache = Path(os.environ["VERACITY_CACHE"])
    written = [*out.iterdir(), *cache.parent.glob(cache.name + "*")]
    assert cache in written and out / "veracity.sqlite3" in written
    for path in written:
        assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in proc.stdout + proc.stderr
    # The endpoint's words are kept, the key masked.
    scrubbed = "the key *** is not allowed"
    manifest = json.loads((out / "run.json").read_text())
    if where == "negotiation":
        assert scrubbed in manifest["judge"]["negotiation"][0]
        assert scrubbed.encode() in cache.read_bytes() + _wal(cache)
    elif where == "results":
        results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
        assert all(scrubbed in result["reason"] for result in results)
        assert scrubbed.encode() in (out / "veracity.sqlite3").read_bytes() + _wal(
            out / "veracity.sqlite3"
        )
    else:
        assert proc.returncode == 2
        assert scrubbed in manifest["error"] and scrubbed in proc.stderr


def _wal(database: Path) -> bytes:
    """What SQLite may still hold in its write-ahead log rather than the file."""
    wal = database.with_name(database.name + "-wal")
    return wal.read_bytes() if wal.exists() else b""
