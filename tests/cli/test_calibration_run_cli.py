"""``veracity run --calibration`` on the command line: a file that computes no number is
exit 2 before any judge call; one fitted on another judge is exit 2 unless ``--force``,
naming both judges; a re-run with another calibration says it re-applied it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.agreement.test_calibration_file_hostile import GOOD, MODEL, changed
from tests.agreement.test_scorings import rows
from veracity.agreement import CalibrationWarning
from veracity.agreement.calibration_file import JudgeIdentity, judge_identity
from veracity.cli import app


def dataset(tmp_path: Path, n: int = 2) -> Path:
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows()[:n]))
    return data


def calibration(tmp_path: Path, name: str, judge: JudgeIdentity, low: float = 0.1) -> Path:
    data: dict[str, Any] = json.loads(json.dumps(GOOD))
    data["judge"] = judge.model_dump()
    data["metrics"]["faithfulness"]["model"] = {"kind": "isotonic", "x": [0, 1], "y": [low, 0.9]}
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def offline_judge() -> JudgeIdentity:
    """The offline judge as a run describes it (its name and parameters)."""
    from veracity.judges import make_judge

    judge = make_judge("offline")
    return judge_identity({"name": judge.name, **judge.describe()})


def test_a_file_computing_no_number_is_exit_2_naming_it_before_any_call(
    cli: CliRunner, tmp_path: Path
) -> None:
    bad = tmp_path / "overflowing.json"
    bad.write_text(changed([*MODEL, "coef"], [1e308, -1e308]))
    out = tmp_path / "run"
    result = cli.invoke(app, ["run", str(dataset(tmp_path)), "--judge", "offline",
                              "--out", str(out), "--calibration", str(bad)])  # fmt: skip
    assert result.exit_code == 2, result.output
    assert str(bad) in result.output and "metrics.faithfulness.model" in result.output
    assert "Traceback" not in result.output
    assert not (out / "results.jsonl").exists()


def test_a_file_fitted_on_another_judge_is_exit_2_unless_forced(
    cli: CliRunner, tmp_path: Path
) -> None:
    other = calibration(tmp_path, "gpt.json", JudgeIdentity(name="openai/gpt-4o-mini"))
    out = tmp_path / "run"
    args = ["run", str(dataset(tmp_path)), "--judge", "offline", "--out", str(out),
            "--calibration", str(other)]  # fmt: skip
    refused = cli.invoke(app, args)
    assert refused.exit_code == 2, refused.output
    assert "fitted on judge 'openai/gpt-4o-mini'" in refused.output
    assert f"this run's judge is {offline_judge().name!r}" in refused.output
    assert "--force" in refused.output
    assert not (out / "results.jsonl").exists()

    with pytest.warns(CalibrationWarning, match="forced"):
        forced = cli.invoke(app, [*args, "--force"])
    assert forced.exit_code == 0, forced.output
    lines = (out / "results.jsonl").read_text().splitlines()
    assert lines and all(json.loads(line)["calibrated"] is not None for line in lines)


def test_a_rerun_with_another_calibration_says_it_reapplied_it(
    cli: CliRunner, tmp_path: Path
) -> None:
    judge = offline_judge()
    first = calibration(tmp_path, "a.json", judge, low=0.1)
    second = calibration(tmp_path, "b.json", judge, low=0.5)
    out = tmp_path / "run"
    args = ["run", str(dataset(tmp_path)), "--judge", "offline", "--out", str(out)]
    assert cli.invoke(app, [*args, "--calibration", str(first)]).exit_code == 0
    again = cli.invoke(app, [*args, "--calibration", str(second)])
    assert again.exit_code == 0, again.output
    assert f"calibration {second}: re-applied to 2 result(s) already done" in again.output
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert all(r["calibrated"] == 0.5 + 0.4 * r["score"] for r in results)
    # Named no more, the offline judge's default calibration takes its place.
    default = cli.invoke(app, args)
    assert "calibration offline-combined (the default for offline/" in default.output
    assert "re-applied to 2 result(s) already done" in default.output
    none = cli.invoke(app, [*args, "--calibration", "none"])
    assert "the calibrated probability of 2 result(s) already done was removed" in none.output
