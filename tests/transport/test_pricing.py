"""Prices: exact names, dated versions, overrides, and unknown models left unpriced."""

from __future__ import annotations

import pytest

from veracity.transport.pricing import Price, Pricing, find_price
from veracity.types import Usage


def test_cost_from_tokens() -> None:
    price = find_price("openai/gpt-4o-mini")
    assert price == Price(0.15, 0.60)
    assert price.cost(Usage(calls=1, input_tokens=1_000_000, output_tokens=500_000)) == (
        pytest.approx(0.15 + 0.30)
    )


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-4o-2024-08-06", Price(2.50, 10.00)),
        ("gpt-4o-mini-2024-07-18", Price(0.15, 0.60)),  # the longer name wins
        ("anthropic/claude-sonnet-4-5-20250929", Price(3.00, 15.00)),
        ("my-local-llama", None),
    ],
)
def test_names_match_by_longest_prefix(model: str, expected: Price | None) -> None:
    assert find_price(model) == expected


def test_overrides_win_and_add_models() -> None:
    overrides = {"gpt-4o": Price(1.0, 2.0), "my-local-llama": Price(0.0, 0.0)}
    assert find_price("gpt-4o", overrides) == Price(1.0, 2.0)
    assert find_price("my-local-llama", overrides) == Price(0.0, 0.0)


@pytest.mark.parametrize("judge", ["openai-decisions/gpt-6-luna", "systemone/gpt-6-luna"])
def test_decision_models_bill_their_input_only(judge: str) -> None:
    price = find_price(judge)
    assert price == Price(0.10, 0.0)
    usage = Usage(calls=1, input_tokens=2_000_000, output_tokens=1_000)
    assert price.cost(usage) == pytest.approx(0.20)


def test_a_decision_models_override_keeps_no_output_price() -> None:
    overrides = {"laya": Price(0.05, 1.0)}
    assert find_price("systemone/laya", overrides) == Price(0.05, 0.0)
    assert find_price("systemone/unknown-decider") is None  # never guessed


def test_usage_keeps_another_models_part_through_sums_and_files() -> None:
    chat = Usage(calls=1, input_tokens=300, output_tokens=40).spent_by("openai/gpt-4o-mini")
    decided = Usage(calls=1, input_tokens=1_000)
    total = chat + decided + chat
    assert (total.calls, total.input_tokens, total.output_tokens) == (3, 1_600, 80)
    assert total.others == {
        "openai/gpt-4o-mini": Usage(calls=2, input_tokens=600, output_tokens=80)
    }
    assert total.own() == Usage(calls=1, input_tokens=1_000)
    assert Usage.model_validate_json(total.model_dump_json()) == total
    # A usage of one model is written as it always was: no empty breakdown in every line.
    assert "others" not in decided.model_dump() and "others" not in decided.model_dump_json()


def test_pricing_costs_each_models_part_at_its_own_price_or_not_at_all() -> None:
    usage = Usage(calls=1, input_tokens=1_000_000) + Usage(
        calls=1, input_tokens=1_000_000, output_tokens=1_000_000
    ).spent_by("chat")
    both = Pricing(Price(2.0, 0.0), {"chat": Price(1.0, 4.0)})
    assert both.cost(usage) == pytest.approx(2.0 + 1.0 + 4.0)
    assert Pricing(Price(2.0, 0.0), {"chat": None}).cost(usage) is None
    assert Pricing(None).cost(Usage(calls=1, input_tokens=10)) is None
    # A part spent by a model the pricing does not know is not priced at the judge's rate.
    assert Pricing(Price(2.0, 0.0)).cost(usage) is None
