"""SystemOne against a real third-party System One server on loopback: sparrow-decider
(its weights ship in its wheel; its answers are near chance, so this tests the wire, not
judging), started by the session's ``sparrow_decider`` fixture (tests/sparrow_decider.py)."""

from __future__ import annotations

import math

import pytest

from veracity.decisions import DecisionRequest, Option, Question
from veracity.decisions.systemone import SystemOne


async def test_systemone_against_sparrow_decider(sparrow_decider: str) -> None:
    request = DecisionRequest(
        "Paris is the capital and largest city of France.",
        (
            Question("in_france", "predicate", "Is Paris in France?"),
            Question(
                "claim_0",
                "choice",
                "Is the claim 'Paris is in France' supported by the state?",
                (
                    Option("supported", "the state says so"),
                    Option("contradicted", "the state says otherwise"),
                    Option("not_enough_information", "the state does not say"),
                ),
            ),
            Question(
                "relevance",
                "score",
                "How relevant is the state to a question about Paris?",
                (Option("1", "off topic"), Option("2", "partly"), Option("3", "on point")),
            ),
        ),
    )
    model = SystemOne("sparrow-nano-general-v1.1", base_url=sparrow_decider)
    reply = await model.decide(request, iteration=0)
    await model.aclose()
    assert reply.model == "sparrow-nano-general-v1.1"
    assert reply.usage.calls == 1
    for question in request.questions:
        answer = reply.answers[question.name]
        assert answer.refusal is None, answer.refusal
        assert tuple(value for value, _ in answer.probabilities) == question.option_values()
        assert math.fsum(p for _, p in answer.probabilities) == pytest.approx(1.0)
    assert reply.answers["claim_0"].confidence is not None


async def test_sparrow_deciders_validation_details_come_through(
    sparrow_decider: str,
) -> None:
    from veracity.transport import CallFailedError

    model = SystemOne("sparrow-nano-general-v1.1", base_url=sparrow_decider)
    # One option only: sparrow-decider's 422 says a choice needs at least 2.
    lonely = Question("lonely", "choice", "Which?", (Option("only"),))
    with pytest.raises(CallFailedError, match=r"HTTP 422\): .*at least 2"):
        await model.decide(DecisionRequest("state", (lonely,)), iteration=0)
    await model.aclose()
