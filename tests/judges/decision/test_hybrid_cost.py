"""What a run costs with a decision judge: input tokens at the decision model's price; in
the hybrid, the chat judge's tokens at the chat model's price, and no made-up cost where
either price is unknown."""

from __future__ import annotations

import json

import pytest

from veracity import EvaluationResult, evaluate
from veracity.chat import ScriptedChat
from veracity.config import RunConfig
from veracity.decisions.scripted import ScriptedDecisions
from veracity.judges import LLMJudge
from veracity.judges.decision import DecisionJudge
from veracity.report.console import usage_line
from veracity.testing import synthetic_samples
from veracity.transport.pricing import Price

THREE = {"supported": 0.8, "contradicted": 0.1, "not_enough_info": 0.1}


def _claims(*_: object) -> str:
    return json.dumps({"claims": ["The answer says one thing."]})


def test_a_decision_judges_cost_is_its_input_tokens_at_its_price() -> None:
    model = ScriptedDecisions(table={"claim_support": THREE}, model="laya")
    prices = {"laya": Price(2.0, 100.0)}  # its output price is never used: none is written
    result = evaluate(
        synthetic_samples(3),
        "faithfulness",
        DecisionJudge(model),
        config=RunConfig(cache=False, prices=prices),
    )
    usage = result.summary["usage"]
    assert usage["output_tokens"] == 0 and usage["input_tokens"] > 0
    cost = result.summary["cost"]["total_usd"]
    assert cost == pytest.approx(usage["input_tokens"] * 2.0 / 1_000_000)


def _hybrid_run(prices: dict[str, Price]) -> EvaluationResult:
    model = ScriptedDecisions(table={"claim_support": THREE}, model="laya")
    judge = DecisionJudge(model, claims_judge=LLMJudge(ScriptedChat(responder=_claims)))
    return evaluate(
        synthetic_samples(3), "faithfulness", judge, config=RunConfig(cache=False, prices=prices)
    )


def test_a_hybrids_cost_prices_each_models_tokens_at_its_own_price() -> None:
    result = _hybrid_run({"laya": Price(2.0, 0.0), "scripted": Price(1.0, 4.0)})
    usage = result.summary["usage"]
    chat = usage["others"]["scripted/scripted"]  # the chat judge wrote the claims
    assert chat["calls"] == 3 and chat["output_tokens"] > 0
    decided = usage["input_tokens"] - chat["input_tokens"]
    assert decided > 0 and usage["output_tokens"] == chat["output_tokens"]
    expected = (decided * 2.0 + chat["input_tokens"] * 1.0 + chat["output_tokens"] * 4.0) / 1e6
    assert result.summary["cost"]["total_usd"] == pytest.approx(expected)
    assert result.manifest["price_per_million_tokens"] == {"input": 2.0, "output": 0.0}
    assert result.manifest["claims_price_per_million_tokens"] == {
        "scripted/scripted": {"input": 1.0, "output": 4.0}
    }
    # Each result's own cost adds up to the run's; the chat part is on the result that
    # drew the claims, never priced at the decision model's rate.
    costs = [r.cost_usd for r in result.results]
    assert None not in costs
    assert sum(c for c in costs if c is not None) == pytest.approx(expected)


def test_a_hybrids_cost_is_unknown_when_one_models_price_is() -> None:
    result = _hybrid_run({"laya": Price(2.0, 0.0)})  # the chat model has no price
    assert result.summary["usage"]["others"]["scripted/scripted"]["output_tokens"] > 0
    assert result.summary["cost"]["total_usd"] is None
    assert result.manifest["claims_price_per_million_tokens"] == {"scripted/scripted": None}
    assert all(r.cost_usd is None for r in result.results)
    # The run says whose price is missing, and so does every report of it.
    assert result.summary["cost"]["unpriced_models"] == ["scripted/scripted"]
    line = usage_line(result.summary)
    assert "no price for scripted/scripted" in line and "prices:" in line


def test_every_model_without_a_price_is_named() -> None:
    result = _hybrid_run({})
    unpriced = result.summary["cost"]["unpriced_models"]
    assert len(unpriced) == 2 and unpriced[1] == "scripted/scripted"
    assert "laya" in unpriced[0]  # the decision model's own, first
