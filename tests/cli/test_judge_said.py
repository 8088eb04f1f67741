"""Issue 48 item 9: every run, report and estimate says which judge ran; a run that falls
back to the offline judge for want of a key says so; the offline estimate has no cost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veracity.cli.app import app
from veracity.report.console import judge_line

ROW = {"question": "Where is it?", "answer": "It is in Paris.", "contexts": ["It is in Paris."]}


@pytest.fixture
def no_llm_configured(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no veracity.yaml naming a judge
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    return data


def test_a_run_without_a_key_says_it_judged_offline(
    cli: CliRunner, no_llm_configured: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    args = ["run", str(no_llm_configured), "--metrics", "faithfulness", "--no-cache"]
    result = cli.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "offline judge" in result.stderr and "OPENAI_API_KEY" in result.stderr
    assert "judge: offline/" in result.stdout and "OPENAI_API_KEY" in result.stdout

    report = cli.invoke(app, ["report", str(out)])
    assert report.exit_code == 0, report.output
    assert "judge: offline/" in report.stdout


def test_an_explicit_offline_judge_gets_no_fallback_note(
    cli: CliRunner, no_llm_configured: Path, tmp_path: Path
) -> None:
    args = ["run", str(no_llm_configured), "--judge", "offline", "--metrics", "faithfulness"]
    result = cli.invoke(app, [*args, "--no-cache", "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    assert "judge: offline/" in result.stdout
    assert "OPENAI_API_KEY" not in result.output


def test_estimate_offline_says_no_calls_and_no_cost(
    cli: CliRunner, no_llm_configured: Path
) -> None:
    result = cli.invoke(app, ["estimate", str(no_llm_configured), "--judge", "offline"])
    assert result.exit_code == 0, result.output
    assert "offline judge" in result.stdout
    assert "judge calls     none" in result.stdout and "cost            none" in result.stdout
    assert "unknown" not in result.stdout and "input tokens" not in result.stdout


def test_estimate_names_an_llm_judge(cli: CliRunner, no_llm_configured: Path) -> None:
    args = ["estimate", str(no_llm_configured), "--judge", "openai/gpt-4o-mini"]
    result = cli.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "with openai/gpt-4o-mini" in result.stdout and "judge calls" in result.stdout


def test_judge_line_names_an_llm_judge_and_its_server() -> None:
    line = judge_line({"name": "openai/qwen", "provider": "openai", "base_url": "http://h:1/v1"})
    assert line == "judge: openai/qwen at http://h:1/v1"
    assert "offline" in judge_line({"name": "offline/minilm-v5", "provider": "offline"})
