"""``veracity run --judge systemone/… | openai-decisions/…`` end to end, against the fake
decision server on loopback: every metric scored, few requests, the judge in run.json;
refusals and a chat model behind the endpoint as statuses and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veracity.cli.app import app
from veracity.cli.common import err_console, out_console
from veracity.testing.decision_server import FakeDecisionServer

METRICS = (
    "faithfulness,context_precision,context_recall,answer_relevance,factual_accuracy,"
    "answer_classification,rubric"
)
SAMPLES = 4


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setattr(out_console, "_width", 250)
    monkeypatch.setattr(err_console, "_width", 250)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    return CliRunner()


@pytest.fixture
def data(tmp_path: Path) -> Path:
    rows = [
        {
            "id": f"s{i}",
            "question": f"What is the capital of Country{i}?",
            "answer": f"City{i} is the capital of Country{i}. It has {i + 3} million people.",
            "contexts": [
                f"City{i} is the capital and largest city of Country{i}.",
                "Berlin lies on the river Spree.",
            ],
            "reference": f"City{i} is the capital of Country{i}.",
        }
        for i in range(SAMPLES)
    ]
    path = tmp_path / "data.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in rows))
    return path


def _results(out: Path) -> dict[tuple[str, str], dict[str, object]]:
    lines = (out / "results.jsonl").read_text().splitlines()
    return {(r["sample_id"], r["metric"]): r for r in map(json.loads, lines)}


@pytest.mark.parametrize("judge", ["systemone/fake-decider", "openai-decisions/gpt-6-luna"])
def test_every_metric_end_to_end(cli: CliRunner, data: Path, tmp_path: Path, judge: str) -> None:
    out = tmp_path / "run"
    with FakeDecisionServer() as server:
        found = cli.invoke(
            app,
            ["run", str(data), "--judge", judge, "--base-url", server.base_url,
             "--metrics", METRICS, "--out", str(out), "--no-cache", "--embedder", "none"],
        )  # fmt: skip
        stats = server.stats
    assert found.exit_code == 0, found.output
    results = _results(out)
    assert len(results) == SAMPLES * len(METRICS.split(","))
    assert {r["status"] for r in results.values()} == {"scored"}
    claims = results["s0", "faithfulness"]["details"]["claims"]  # type: ignore[index]
    assert claims[0]["verdict"] == "supported" and claims[0]["probabilities"]
    # Per sample: the contexts (claims, statements, chunks), the answer (relevance), the
    # answer against the reference (classification, factual), the rubric's state.
    assert stats.decisions == 4 * SAMPLES
    judged = json.loads((out / "run.json").read_text())["judge"]
    assert judged["name"] == judge
    assert judged["claims"]["source"] == "offline segmentation"


def test_faithfulness_and_context_precision_share_a_request(
    cli: CliRunner, data: Path, tmp_path: Path
) -> None:
    with FakeDecisionServer() as server:
        found = cli.invoke(
            app,
            ["run", str(data), "--judge", "systemone/x", "--base-url", server.base_url,
             "--metrics", "faithfulness,context_precision,context_recall,answer_relevance",
             "--out", str(tmp_path / "run"), "--no-cache", "--embedder", "none"],
        )  # fmt: skip
        assert found.exit_code == 0, found.output
        assert server.stats.decisions <= 2 * SAMPLES


def test_refused_claims_are_judge_errors(cli: CliRunner, data: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    with FakeDecisionServer(refuse=lambda q: "million" in q.instructions) as server:
        found = cli.invoke(
            app,
            ["run", str(data), "--judge", "systemone/x", "--base-url", server.base_url,
             "--metrics", "faithfulness", "--out", str(out), "--no-cache"],
        )  # fmt: skip
    assert found.exit_code == 3, found.output
    for result in _results(out).values():
        assert result["status"] == "judge_error"
        assert "refused the claim" in str(result["reason"])


def test_a_chat_model_behind_the_endpoint_stops_the_run(
    cli: CliRunner, data: Path, tmp_path: Path
) -> None:
    with FakeDecisionServer(decision_model=False) as server:
        found = cli.invoke(
            app,
            ["run", str(data), "--judge", "systemone/x", "--base-url", server.base_url,
             "--metrics", "faithfulness", "--out", str(tmp_path / "run"), "--no-cache"],
        )  # fmt: skip
    assert found.exit_code == 2, found.output
    assert "not a decision model" in found.output


def test_a_system_one_judge_without_a_base_url_is_a_usage_error(
    cli: CliRunner, data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SYSTEMONE_BASE_URL", raising=False)
    found = cli.invoke(app, ["run", str(data), "--judge", "systemone/x", "--out", str(tmp_path)])
    assert found.exit_code == 2
    assert "needs the server's base URL: --base-url or SYSTEMONE_BASE_URL" in found.output
    assert "Traceback" not in found.output
