"""Agreement and calibration read a decision judge's probabilities like any judge's: its
P(supported) per claim ranks the answers, a calibration fitted on people's labels learns
what it misses, and a new run with that calibration gets calibrated probabilities.

The scenario of :mod:`tests.agreement.scenario`, judged by a scripted decision model that
finds the "WRONG" answers contradicted and, like the scripted chat judge, the answers
naming another city supported."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.agreement import scenario
from veracity import EvaluationResult, evaluate
from veracity.cli.app import app
from veracity.config import RunConfig
from veracity.decisions import Question
from veracity.decisions.scripted import ScriptedDecisions
from veracity.judges.decision import DecisionJudge


def _verdicts(_: str, question: Question) -> dict[str, float]:
    if "WRONG" in question.instructions:
        return {"supported": 0.1, "contradicted": 0.8, "not_enough_info": 0.1}
    return {"supported": 0.9, "contradicted": 0.05, "not_enough_info": 0.05}


def _run(out: Path | None = None, **settings: Any) -> EvaluationResult:
    judge = DecisionJudge(ScriptedDecisions(_verdicts, model="decider"))
    config = RunConfig(**settings)
    return evaluate(scenario.rows(), "faithfulness", judge, config=config, out=out, progress=False)


@pytest.fixture(scope="module")
def result() -> EvaluationResult:
    return _run()


def test_the_probabilities_rank_the_answers(result: EvaluationResult) -> None:
    figures = result.agreement(scenario.labels(), resamples=200).metrics[0][0].overall.figures
    assert figures.n == 30
    assert figures.auroc.value == pytest.approx(0.75)  # the swapped city: a decision model's miss


def test_a_calibration_learns_what_the_decision_model_misses(
    result: EvaluationResult, tmp_path: Path
) -> None:
    fitted = result.calibrate(scenario.labels())
    entry = fitted.calibration.metrics["faithfulness"]
    assert entry.helps and entry.cv.auroc_calibrated is not None
    assert entry.cv.auroc_calibrated > 0.95
    assert fitted.calibration.judge.name == "scripted/decider"
    path = tmp_path / "calibration.json"
    path.write_text(fitted.calibration.model_dump_json())
    again = _run(calibration=path)
    calibrated: dict[str, float] = {}
    for r in again.results:
        assert r.calibrated is not None
        calibrated[r.sample_id] = r.calibrated
    assert all(calibrated[f"s{i}"] > 0.5 for i in range(0, 30, 3))  # right
    assert all(calibrated[f"s{i}"] < 0.5 for i in range(2, 30, 3))  # swapped


def test_agree_reads_a_decision_runs_directory(tmp_path: Path) -> None:
    run = tmp_path / "run"
    _run(out=run)
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(row) + "\n" for row in scenario.labels()))
    shown = CliRunner().invoke(app, ["agree", str(run), "--labels", str(labels)])
    assert shown.exit_code == 0, shown.output
    assert "faithfulness" in shown.output and "0.75" in shown.output
