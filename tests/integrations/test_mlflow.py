"""MLflow logging through the real client into a local SQLite tracking store."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mlflow", reason="the mlflow extra is not installed")
pytest.importorskip("sqlalchemy", reason="the mlflow extra is not installed")

import mlflow

from tests.report.ci_runs import result, write_run
from veracity.integrations.mlflow import log_run


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One SQLite store for the module (creating its tables takes seconds)."""
    folder = tmp_path_factory.mktemp("mlflow")
    previous = mlflow.get_tracking_uri()
    mlflow.set_tracking_uri(f"sqlite:///{folder / 'mlflow.db'}")
    yield mlflow.MlflowClient()
    mlflow.set_tracking_uri(previous)


def experiment(client: Any, name: str, folder: Path) -> str:
    """A new experiment whose artifacts and traces go under ``folder`` (by default they
    would go to ./mlruns, wherever the tests run)."""
    experiment_id: str = client.create_experiment(name, artifact_location=folder.as_uri())
    return experiment_id


def artifact(client: Any, run_id: str, path: str) -> str:
    local = client.download_artifacts(run_id, path)
    return Path(local).read_text(encoding="utf-8")


def test_params_metrics_and_the_results_table(store: Any, tmp_path: Path) -> None:
    experiment(store, "ci-params", tmp_path / "artifacts")
    run_id = log_run(write_run(tmp_path / "nightly"), experiment="ci-params", feedback=False)
    logged = store.get_run(run_id)
    assert logged.info.run_name == "nightly"
    assert logged.info.status == "FINISHED"
    params = logged.data.params
    assert params["judge.name"] == "openai/gpt-4o-mini"
    assert params["judge.model"] == "gpt-4o-mini"
    assert params["judge.prompts.claim_extraction"] == "abc123"
    assert params["settings.thresholds.faithfulness"] == "0.7"
    assert params["metrics"] == "faithfulness,context_recall"
    metrics = logged.data.metrics
    # 0.9, 1.0, 0.5 in each system: mean 0.8, 4 of 6 at or above 0.7.
    assert metrics["faithfulness/mean"] == pytest.approx(0.8)
    assert metrics["faithfulness/pass_rate"] == pytest.approx(4 / 6)
    assert metrics["faithfulness/ci95_low"] <= 0.8 <= metrics["faithfulness/ci95_high"]
    assert metrics["faithfulness/n"] == 8
    assert metrics["faithfulness/judge_errors"] == 2
    assert metrics["faithfulness/threshold"] == 0.7
    assert metrics["faithfulness/threshold_met"] == 1.0
    assert "context_recall/threshold_met" not in metrics  # no threshold given
    assert metrics["faithfulness/system/base/mean"] == pytest.approx(0.8)
    assert metrics["cost_usd"] == pytest.approx(0.012)
    rows = list(csv.DictReader(io.StringIO(artifact(store, run_id, "veracity/results.csv"))))
    assert len(rows) == 12
    failed = next(r for r in rows if r["sample_id"] == "s3" and r["system"] == "base")
    assert (failed["metric"], failed["score"], failed["status"]) == (
        "faithfulness",
        "0.5",
        "scored",
    )
    assert json.loads(failed["details"])["claims"][1]["verdict"] == "contradicted"
    summary = json.loads(artifact(store, run_id, "veracity/summary.json"))
    assert summary["results"] == 12


def test_feedback_per_item_on_traces_of_the_run(store: Any, tmp_path: Path) -> None:
    experiment_id = experiment(store, "ci-feedback", tmp_path / "artifacts")
    with mlflow.start_run(experiment_id=experiment_id) as active:
        # Into the run the caller already has open; a threshold on top changes the gate.
        run_id = log_run(result(), thresholds={"faithfulness": 0.9})
    assert run_id == active.info.run_id
    metrics = store.get_run(run_id).data.metrics
    assert metrics["faithfulness/threshold_met"] == 0.0
    traces = mlflow.search_traces(
        locations=[active.info.experiment_id], run_id=run_id, return_type="list"
    )
    assert len(traces) == 8  # 4 samples × 2 systems, one iteration
    feedback = {
        (t.info.request_metadata["mlflow.traceInputs"], a.name): a
        for t in (store.get_trace(t.info.trace_id) for t in traces)
        for a in t.info.assessments
    }
    assert len(feedback) == 12
    key = json.dumps({"sample_id": "s3", "system": "base", "iteration": 0})
    failed = feedback[key, "faithfulness"]
    assert failed.feedback.value == 0.5
    assert failed.rationale.startswith("1 of 2 supported")
    assert failed.source.source_id == "openai/gpt-4o-mini"
    assert failed.metadata == {"status": "scored", "threshold": "0.9"}
    broken = feedback[json.dumps({"sample_id": "s4", "system": "base", "iteration": 0}),
                      "faithfulness"]  # fmt: skip
    assert broken.feedback.value is None
    assert broken.feedback.error.error_code == "judge_error"
