"""The run's cost in words, as every report says it."""

from __future__ import annotations

from veracity.report.groups import cost_text


def test_a_known_cost_is_dollars() -> None:
    assert cost_text({"cost": {"total_usd": 0.01234}}) == "$0.0123"


def test_an_unknown_cost_names_the_models_without_a_price() -> None:
    summary = {"cost": {"total_usd": None, "unpriced_models": ["laya", "openai/m"]}}
    assert cost_text(summary) == (
        "cost unknown (no price for laya, openai/m: add one under prices: in the config file)"
    )
    assert cost_text(summary, in_a_row=True).startswith("unknown (no price for laya,")


def test_a_summary_that_does_not_say_whose_price_is_missing_says_this_model() -> None:
    # A summary rebuilt from results.jsonl (veracity report) does not know the models.
    assert "no price for this model" in cost_text({"cost": {"total_usd": None}})
