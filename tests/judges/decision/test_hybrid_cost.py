"""What a run costs with a decision judge: input tokens at the decision model's price, and
no made-up cost where a chat judge's tokens are mixed in (the hybrid)."""

from __future__ import annotations

import json

import pytest

from veracity import evaluate
from veracity.chat import ScriptedChat
from veracity.config import RunConfig
from veracity.decisions.scripted import ScriptedDecisions
from veracity.judges import LLMJudge
from veracity.judges.decision import DecisionJudge
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


def test_a_hybrids_cost_is_unknown_not_priced_at_one_models_rate() -> None:
    model = ScriptedDecisions(table={"claim_support": THREE}, model="laya")
    judge = DecisionJudge(model, claims_judge=LLMJudge(ScriptedChat(responder=_claims)))
    prices = {"laya": Price(2.0, 0.0), "scripted": Price(1.0, 4.0)}
    result = evaluate(
        synthetic_samples(3), "faithfulness", judge, config=RunConfig(cache=False, prices=prices)
    )
    assert result.summary["usage"]["output_tokens"] > 0  # the chat judge wrote the claims
    assert result.summary["cost"]["total_usd"] is None
    assert result.manifest["price_per_million_tokens"] is None
