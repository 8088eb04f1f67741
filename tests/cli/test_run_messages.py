"""What ``veracity run`` says when it is used wrongly: the option or file named, exit 2,
and, where the problem is known before the run, not a single judge call made."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_run_end_to_end import ROWS, write_dataset
from tests.in_process import veracity
from veracity.testing import FakeLLMServer


def run_refused(tmp_path: Path, *args: str, dataset: Path | None = None) -> str:
    """Run with ``args``; assert exit 2 before any judge call; the error message."""
    data = dataset or write_dataset(tmp_path / "data.jsonl", ROWS[:2])
    with FakeLLMServer() as server:
        proc = veracity(
            "run", str(data), "--judge", "openai/m", "--base-url", server.base_url,
            "--out", str(tmp_path / "run"), *args,
        )  # fmt: skip
        requests = server.stats.requests
    assert proc.returncode == 2, proc.stderr
    assert requests == 0
    assert "Traceback" not in proc.stderr
    return proc.stderr


@pytest.mark.parametrize("metrics", ["", ",,", " , "])
def test_metrics_naming_no_metric_is_an_error_not_the_default(tmp_path: Path, metrics: str) -> None:
    stderr = run_refused(tmp_path, "--metrics", metrics)
    assert f"--metrics {metrics!r} names no metric" in stderr


def test_config_metrics_naming_no_metric_is_an_error(tmp_path: Path) -> None:
    config = tmp_path / "veracity.yaml"
    config.write_text("metrics: []\n")
    stderr = run_refused(tmp_path, "--config", str(config))
    assert f"{config}: metrics:" in stderr


def test_a_threshold_on_a_metric_not_run_is_refused_before_the_run(tmp_path: Path) -> None:
    stderr = run_refused(tmp_path, "--metrics", "faithfulness", "--threshold", "bogus=0.5")
    assert "threshold on 'bogus', a metric this run does not compute" in stderr
    assert "(its metrics: faithfulness)" in stderr


def test_a_config_threshold_on_a_metric_not_run_is_refused_before_the_run(
    tmp_path: Path,
) -> None:
    config = tmp_path / "veracity.yaml"
    config.write_text("thresholds: {context_recall: 0.5}\n")
    stderr = run_refused(tmp_path, "--config", str(config), "--metrics", "faithfulness")
    assert "threshold on 'context_recall'" in stderr


@pytest.mark.parametrize("command", ["run", "estimate"])
def test_a_directory_as_the_dataset_is_named_as_one(tmp_path: Path, command: str) -> None:
    folder = tmp_path / "data.jsonl"
    folder.mkdir()
    proc = veracity(command, str(folder), "--judge", "offline")
    assert proc.returncode == 2
    assert f"the dataset is a directory, not a file: {folder}" in proc.stderr
    assert "not found" not in proc.stderr


def test_a_message_keeps_its_brackets(tmp_path: Path) -> None:
    # Rich markup would swallow "[v2]" from the path: messages are printed as they are.
    missing = tmp_path / "data[v2].jsonl"
    proc = veracity("run", str(missing), "--judge", "offline")
    assert proc.returncode == 2
    assert f"dataset not found: {missing}" in proc.stderr


def test_help_names_the_offline_judge_and_the_pyproject_table() -> None:
    proc = veracity("run", "--help", env={"COLUMNS": "250"})
    assert proc.returncode == 0
    judge = next(line for line in proc.stdout.splitlines() if "--judge" in line)
    assert "offline, openai/MODEL, anthropic/MODEL" in judge
    assert "systemone/MODEL or openai-decisions/MODEL" in judge
    config = next(line for line in proc.stdout.splitlines() if "--config" in line)
    assert "[tool.veracity] in pyproject.toml" in config


def test_run_json_records_the_settings_checked_up_front(tmp_path: Path) -> None:
    # The happy path beside the refusals: a threshold on a metric of the run is a gate.
    data = write_dataset(tmp_path / "data.jsonl", ROWS[:2])
    with FakeLLMServer() as server:
        proc = veracity(
            "run", str(data), "--judge", "openai/m", "--base-url", server.base_url,
            "--out", str(tmp_path / "run"), "--metrics", " faithfulness ,",
            "--threshold", "faithfulness=0.5",
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert manifest["metrics"] == ["faithfulness"]
    assert manifest["settings"]["thresholds"] == {"faithfulness": 0.5}


def test_the_evidence_policy_is_chosen_by_flag_or_config_and_recorded(tmp_path: Path) -> None:
    from veracity.judges.llm.evidence import DEFAULT_UNFOUNDED_SUPPORT

    data = write_dataset(tmp_path / "data.jsonl", ROWS[:2])
    config = tmp_path / "veracity.yaml"
    config.write_text("unfounded_support: downgrade\n")
    chosen = {}
    with FakeLLMServer() as server:
        for name, args in {
            "default": [],
            "flag": ["--unfounded-support", "flag"],
            "config": ["--config", str(config)],
        }.items():
            proc = veracity(
                "run", str(data), "--judge", "openai/m", "--base-url", server.base_url,
                "--out", str(tmp_path / name), "--metrics", "faithfulness", *args,
            )  # fmt: skip
            assert proc.returncode == 0, proc.stderr
            manifest = json.loads((tmp_path / name / "run.json").read_text())
            chosen[name] = manifest["judge"]["unfounded_support"]
    assert chosen == {"default": DEFAULT_UNFOUNDED_SUPPORT, "flag": "flag", "config": "downgrade"}


def test_a_bad_evidence_policy_is_named_before_any_call(tmp_path: Path) -> None:
    stderr = run_refused(tmp_path, "--unfounded-support", "strict")
    assert "--unfounded-support must be one of flag, downgrade, not 'strict'" in stderr
    config = tmp_path / "veracity.yaml"
    config.write_text("unfounded_support: strict\n")
    assert f"{config}: unfounded_support:" in run_refused(tmp_path, "--config", str(config))


@pytest.mark.parametrize("content", ["", '{"id": "x"}\n{broken\n'])
def test_a_dataset_without_a_valid_sample_is_bad_input(tmp_path: Path, content: str) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(content)
    stderr = run_refused(tmp_path, dataset=data)
    bad = content.count("\n")
    assert f"no valid sample in {data} ({bad} bad row(s))" in stderr


@pytest.mark.parametrize(
    ("option", "metric", "named"),
    [
        ("--embedder", "answer_relevance", "unknown embedder 'bogus'"),
        ("--bert-model", "bert_score", "unknown BERT scorer 'bogus'"),
    ],
)
def test_an_unknown_model_name_is_named_not_a_traceback(
    tmp_path: Path, option: str, metric: str, named: str
) -> None:
    stderr = run_refused(tmp_path, "--metrics", metric, option, "bogus")
    assert named in stderr


def test_an_unknown_metric_gets_a_did_you_mean(tmp_path: Path) -> None:
    stderr = run_refused(tmp_path, "--metrics", "faithfullness")
    assert "unknown metric 'faithfullness'; did you mean 'faithfulness'?" in stderr


def test_an_unknown_option_gets_a_did_you_mean(tmp_path: Path) -> None:
    # typer (click) suggests the option itself, from difflib's close matches: "(Possible
    # options: --iterations)" in typer's copy of click, "Did you mean" in click's.
    stderr = run_refused(tmp_path, "--iterationz", "2")
    assert "No such option: --iterationz" in stderr
    assert "--iterations" in stderr.split("No such option")[1]


def test_a_bad_cache_bound_is_named_before_any_call(tmp_path: Path) -> None:
    stderr = run_refused(tmp_path, "--cache-max-size", "lots")
    assert "--cache-max-size: bad size 'lots'" in stderr
    config = tmp_path / "veracity.yaml"
    config.write_text("cache_max_size: 12 parsecs\n")
    stderr = run_refused(tmp_path, "--config", str(config))
    assert f"{config}: cache_max_size: bad size '12 parsecs'" in stderr


def test_version_is_an_option_and_a_command() -> None:
    from veracity import __version__

    for args in (["--version"], ["version"]):
        proc = veracity(*args)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == __version__


def test_a_bad_embedding_precision_in_the_environment_is_a_usage_error(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "data.jsonl", ROWS[:1])
    proc = veracity(
        "run", str(data), "--metrics", "faithfulness", "--judge", "offline",
        "--out", str(tmp_path / "run"), env={"VERACITY_EMBEDDING_PRECISION": "fp16"},
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "VERACITY_EMBEDDING_PRECISION must be one of auto, float32, bfloat16" in proc.stderr
    assert "Traceback" not in proc.stderr
