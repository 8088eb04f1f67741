"""Choosing where a run is scored: local or ray, and a clear message when Ray is missing."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veracity import evaluate
from veracity.cli.app import app
from veracity.cli.common import err_console
from veracity.config import RunConfig
from veracity.runner import ExecutorError, checked_executor, metrics_runner, run_metrics

ROW = {"id": "q1", "question": "Q?", "contexts": ["C."], "answer": "A."}


@pytest.fixture
def no_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a)
    )


def test_local_is_the_default_runner_and_unknown_executors_are_named() -> None:
    assert metrics_runner("local") is run_metrics
    with pytest.raises(ValueError, match="unknown executor 'spark': expected local or ray"):
        checked_executor("spark")
    with pytest.raises(ValueError, match="ray_address is for the ray executor"):
        metrics_runner("local", "127.0.0.1:6379")


@pytest.mark.usefixtures("no_ray")
def test_without_ray_the_api_says_what_to_install_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(ExecutorError, match=r"pip install 'veracity\[ray\]'"):
        evaluate(
            [ROW], "faithfulness", "offline", config=RunConfig(executor="ray"), out=tmp_path / "run"
        )
    assert not (tmp_path / "run").exists()


@pytest.mark.usefixtures("no_ray")
@pytest.mark.parametrize("how", ["flag", "config"])
def test_without_ray_the_cli_exits_2_with_the_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    monkeypatch.setattr(err_console, "_width", 250)
    monkeypatch.chdir(tmp_path)
    dataset = tmp_path / "data.jsonl"
    dataset.write_text(json.dumps(ROW) + "\n")
    args = ["run", str(dataset), "--judge", "offline", "--out", str(tmp_path / "run")]
    if how == "flag":
        args += ["--executor", "ray"]
    else:
        (tmp_path / "veracity.yaml").write_text("executor: ray\n")
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "the ray executor needs Ray: pip install 'veracity[ray]'" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "run").exists()


def test_the_cli_rejects_a_ray_address_without_the_ray_executor(tmp_path: Path) -> None:
    dataset = tmp_path / "data.jsonl"
    dataset.write_text(json.dumps(ROW) + "\n")
    result = CliRunner().invoke(
        app, ["run", str(dataset), "--judge", "offline", "--ray-address", "127.0.0.1:6379"]
    )
    assert result.exit_code == 2
    assert "--ray-address is for --executor ray" in result.output


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="needs Ray")
def test_a_cluster_address_where_nothing_listens_fails_at_once(tmp_path: Path) -> None:
    with pytest.raises(ExecutorError, match=r"no Ray cluster answers at 127\.0\.0\.1:9: "):
        evaluate(
            [ROW],
            "faithfulness",
            "offline",
            config=RunConfig(executor="ray", ray_address="127.0.0.1:9"),
            out=tmp_path / "run",
        )
    assert not (tmp_path / "run").exists()
