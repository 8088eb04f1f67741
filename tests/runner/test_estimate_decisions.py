"""``veracity estimate`` with a decision judge: its requests counted by the judge's own
grouping and splitting, held against what a run really sends to a decision server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veracity import evaluate
from veracity.cli.app import app
from veracity.config import RunConfig
from veracity.decisions import ServerLimits
from veracity.decisions.limits import SYSTEMONE_LIMITS
from veracity.decisions.systemone import SystemOne
from veracity.judges.decision import DecisionJudge
from veracity.metrics import resolve_metrics
from veracity.runner.estimate_decisions import estimate_decisions
from veracity.testing import FakeDecisionServer, synthetic_samples

RAG = ["faithfulness", "context_precision", "context_recall", "answer_relevance"]


@pytest.mark.parametrize("metrics", [["faithfulness"], RAG])
@pytest.mark.parametrize("iterations", [1, 2])
def test_requests_and_tokens_match_a_run(metrics: list[str], iterations: int) -> None:
    samples = synthetic_samples(30, seed=4)
    chosen = resolve_metrics(metrics)
    predicted = estimate_decisions(samples, chosen, SYSTEMONE_LIMITS, iterations=iterations)
    with FakeDecisionServer(limits=SYSTEMONE_LIMITS) as server:
        judge = DecisionJudge(SystemOne("fake", base_url=server.base_url))
        evaluate(samples, chosen, judge, config=RunConfig(iterations=iterations, cache=False))
        stats = server.stats
    assert predicted.samples == 30
    assert predicted.output_tokens == 0
    assert predicted.calls == pytest.approx(stats.decisions, rel=0.15)
    assert predicted.input_tokens == pytest.approx(stats.input_tokens, rel=0.2)


def test_a_servers_limit_splits_the_estimated_requests() -> None:
    samples = synthetic_samples(10, seed=1)
    chosen = resolve_metrics(["faithfulness"])
    wide = estimate_decisions(samples, chosen, SYSTEMONE_LIMITS)
    narrow = estimate_decisions(samples, chosen, ServerLimits(max_questions=1, max_options=26))
    assert narrow.calls > wide.calls  # one claim a request


@pytest.fixture
def data(tmp_path: Path) -> Path:
    dataset = tmp_path / "data.jsonl"
    rows = (s.model_dump(mode="json") for s in synthetic_samples(5, seed=3))
    dataset.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return dataset


def test_the_command_says_requests_and_no_output_tokens(data: Path) -> None:
    result = CliRunner().invoke(
        app, ["estimate", str(data), "--judge", "openai-decisions/gpt-6-luna",
              "--metrics", ",".join(RAG)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "judge requests" in result.output
    assert "output tokens   none" in result.output
    assert "cost            ~$" in result.output


def test_a_hybrid_prices_the_chat_judges_claims_apart(data: Path) -> None:
    result = CliRunner().invoke(
        app, ["estimate", str(data), "--judge", "systemone/my-decider", "--claims-judge",
              "openai/gpt-4o-mini", "--metrics", "faithfulness"],
        env={"OPENAI_API_KEY": "unused"},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    decisions, claims = result.output.split("claims by openai/gpt-4o-mini:")
    assert "decisions by systemone/my-decider" in decisions
    assert "cost            unknown" in decisions  # no price for this decision model: not guessed
    assert "claim_extraction" in claims and "cost            ~$" in claims
    assert "total cost      unknown" in claims
