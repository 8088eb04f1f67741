"""The run settings' flags are made from RunConfig: one declaration, every command alike."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veracity.cli.app import app
from veracity.cli.run import estimate, run
from veracity.cli.settings import run_settings
from veracity.config import RunConfig

# Settings only the config file sets: tables and lists a flag would write badly; and what
# only the Python API reads (the command line keeps no result in memory, and records its own).
FILE_ONLY = {
    "rubrics", "weights", "prices", "abstention_phrases", "batch_poll_s", "traces",
    "keep_results", "extra_settings",
}  # fmt: skip


def _options(command: object) -> dict[str, inspect.Parameter]:
    return dict(inspect.signature(command).parameters)  # type: ignore[arg-type]


def test_every_setting_is_a_flag_of_run_or_set_in_the_file_only() -> None:
    flags = set(_options(run))
    assert set(RunConfig.model_fields) - FILE_ONLY <= flags
    assert not FILE_ONLY & flags


def test_a_flag_says_what_its_setting_declares(cli: CliRunner) -> None:
    shown = cli.invoke(app, ["run", "--help"], env={"COLUMNS": "400"}).output
    for name in ("concurrency", "prompt_budget", "timeout", "executor"):
        first_words = " ".join(str(RunConfig.model_fields[name].description).split()[:4])
        assert first_words in shown
    assert "Judge calls in flight. Default: 16." in shown
    assert "Seconds per call, the whole reply included. Default: 60." in shown
    assert "pip install 'veracity[ray]'" in shown  # not eaten as rich markup
    assert "--truncate-contexts" in shown and "--no-truncate-contexts" in shown
    assert "--threshold " in shown and "--thresholds" not in shown


def test_estimate_takes_the_settings_it_names_and_no_others() -> None:
    options = _options(estimate)
    assert {"metrics", "judge", "batch", "config"} <= set(options)
    assert "max_error_rate" not in options


def test_a_setting_without_a_flag_type_is_refused_when_the_command_is_made() -> None:
    def command(settings: RunConfig) -> None:
        del settings

    with pytest.raises(TypeError, match="'prices' has no flag type"):
        run_settings("prices")(command)


def test_the_command_gets_the_settings_made_from_flags_and_file(tmp_path: Path) -> None:
    (tmp_path / "veracity.yaml").write_text("concurrency: 3\nrpm: 50\n", encoding="utf-8")
    seen: list[RunConfig] = []

    @run_settings("concurrency", "rpm", "cache")
    def command(settings: RunConfig, name: str = "x") -> None:
        assert name == "given"
        seen.append(settings)

    command(name="given", concurrency=None, rpm=7.0, cache=False, config=tmp_path / "veracity.yaml")
    assert (seen[0].concurrency, seen[0].rpm, seen[0].cache) == (3, 7.0, False)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--concurrency", "0"], "--concurrency: Input should be greater than or equal to 1"),
        (["--timeout", "0"], "--timeout: Input should be greater than 0"),
        (["--max-error-rate", "1.5"], "--max-error-rate: Input should be less than or equal to 1"),
        (["--executor", "rya"], "--executor must be one of local, ray, not 'rya'"),
        (["--metrics", ","], "--metrics ',' names no metric"),
        (["--threshold", "faithfulness"], "bad threshold 'faithfulness'"),
    ],
)
def test_a_bad_flag_is_named_and_exits_2(
    cli: CliRunner, tmp_path: Path, flags: list[str], message: str
) -> None:
    dataset = tmp_path / "d.jsonl"
    dataset.write_text('{"question": "q", "answer": "a", "contexts": ["c"]}\n', encoding="utf-8")
    result = cli.invoke(app, ["run", str(dataset), "--judge", "offline", *flags])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert not (tmp_path / "runs").exists()
