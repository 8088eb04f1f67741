"""``veracity cache info`` and ``veracity cache clear``."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from tests.in_process import veracity
from veracity.chat import ChatReply
from veracity.chat.cache import ResponseCache
from veracity.cli.app import app
from veracity.cli.common import err_console, out_console
from veracity.types import Usage

DAY = 86400.0


@pytest.fixture
def cache_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "responses.sqlite3"
    monkeypatch.setenv("VERACITY_CACHE", str(path))
    monkeypatch.delenv("VERACITY_CACHE_MAX_SIZE", raising=False)
    monkeypatch.chdir(tmp_path)  # no veracity.yaml of the repository's
    # wide consoles: a message is never wrapped in the middle of what a test looks for
    monkeypatch.setattr(out_console, "_width", 250)
    monkeypatch.setattr(err_console, "_width", 250)
    return path


def fill(path: Path, entries: Sequence[tuple[str, str, str, float]]) -> None:
    """Replies (key, judge, model, days since last use) as runs would have left them."""
    when = [time.time()]
    cache = ResponseCache(path, clock=lambda: when[0])
    for key, judge, model, days_ago in entries:
        when[0] = time.time() - days_ago * DAY
        cache.put(key, ChatReply("x" * 400, Usage(calls=1), 0.0, model), judge)
    cache.close()


ENTRIES = [
    ("a1", "openai/gpt-4o-mini", "gpt-4o-mini-2024-07-18", 40),
    ("a2", "openai/gpt-4o-mini", "gpt-4o-mini-2024-07-18", 1),
    ("b1", "anthropic/claude-sonnet-4-5", "claude-sonnet-4-5-20250929", 50),
]


def invoke(*args: str, answer: str | None = None) -> Result:
    return CliRunner().invoke(app, ["cache", *args], input=answer)


def keys(path: Path) -> set[str]:
    cache = ResponseCache(path)
    try:
        return {k for (k,) in cache._rows("SELECT key FROM replies")}
    finally:
        cache.close()


def test_info_of_a_cache_not_made_yet_says_so(cache_path: Path) -> None:
    result = invoke("info")
    assert result.exit_code == 0, result.output
    assert f"{cache_path} (not created yet: nothing cached)" in result.output
    assert not cache_path.exists()  # looking creates nothing


def test_info_shows_size_bound_entries_and_models(cache_path: Path) -> None:
    fill(cache_path, ENTRIES)
    (cache_path.parent / "veracity.yaml").write_text("cache_max_size: 2MiB\n")
    result = invoke("info")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == ["response", "cache", str(cache_path)]
    assert "(bound 2.0 MiB; least recently used go first)" in result.output
    assert any(line.split() == ["entries", "3"] for line in lines)
    assert any(
        line.split()[:3] == ["openai/gpt-4o-mini", "gpt-4o-mini-2024-07-18", "2"] for line in lines
    )
    claude = ["anthropic/claude-sonnet-4-5", "claude-sonnet-4-5-20250929", "1"]
    assert any(line.split()[:3] == claude for line in lines)


def test_clear_asks_first_and_no_keeps_everything(cache_path: Path) -> None:
    fill(cache_path, ENTRIES)
    result = invoke("clear", answer="n\n")
    assert result.exit_code == 0, result.output
    assert "Clear 3 cached replies" in result.output and "nothing cleared" in result.output
    assert keys(cache_path) == {"a1", "a2", "b1"}
    result = invoke("clear", answer="y\n")
    assert result.exit_code == 0, result.output
    assert "cleared 3 cached replies" in result.output and "0 left" in result.output
    assert keys(cache_path) == set()


def test_clear_without_an_answer_or_yes_is_refused(cache_path: Path) -> None:
    fill(cache_path, ENTRIES)
    result = invoke("clear", answer="")
    assert result.exit_code == 2
    assert "add --yes to clear without asking" in result.output
    assert keys(cache_path) == {"a1", "a2", "b1"}


def test_clear_older_than_and_model(cache_path: Path) -> None:
    fill(cache_path, ENTRIES)
    result = invoke("clear", "--older-than", "30d", "--model", "gpt-4o-mini", "--yes")
    assert result.exit_code == 0, result.output
    assert "cleared 1 cached replies of gpt-4o-mini not used for 30d" in result.output
    assert keys(cache_path) == {"a2", "b1"}
    result = invoke("clear", "--older-than", "30d", "--yes")
    assert result.exit_code == 0, result.output
    assert keys(cache_path) == {"a2"}
    result = invoke("clear", "--older-than", "30d", "--yes")
    assert "nothing to clear: no cached reply not used for 30d" in result.output
    assert result.exit_code == 0


def test_clear_a_model_not_in_the_cache_suggests_the_one_meant(cache_path: Path) -> None:
    fill(cache_path, ENTRIES)
    result = invoke("clear", "--model", "gpt4o-mini", "--yes")
    assert result.exit_code == 2
    assert "no cached reply of 'gpt4o-mini'; did you mean 'gpt-4o-mini'?" in result.output
    assert keys(cache_path) == {"a1", "a2", "b1"}


@pytest.mark.parametrize("age", ["30", "thirty days", "-1d"])
def test_a_bad_age_is_named(cache_path: Path, age: str) -> None:
    result = invoke("clear", "--older-than", age, "--yes")
    assert result.exit_code == 2
    assert f"--older-than: bad age {age!r}" in result.output


def test_a_damaged_cache_is_set_aside_and_the_commands_go_on(tmp_path: Path) -> None:
    path = tmp_path / "responses.sqlite3"
    path.write_bytes(b"\x00garbage, not SQLite" * 512)
    env = {"VERACITY_CACHE": str(path)}
    info = veracity("cache", "info", env=env)
    assert info.returncode == 0, info.stderr
    assert "warning:" in info.stderr and "set aside" in info.stderr
    assert "Traceback" not in info.stderr
    assert [p.name for p in tmp_path.glob("responses.sqlite3.corrupt-*")]
    clear = veracity("cache", "clear", "--yes", env=env)
    assert clear.returncode == 0, clear.stderr
    assert "nothing to clear" in clear.stdout
