"""A question being asked is not asked again at the same time: a second request about the
same state waits for its answer, as a chat prompt in flight is waited for."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.decisions.test_systemone import claim
from veracity.chat.cache import ResponseCache
from veracity.decisions import DecisionReply, DecisionRequest, Question
from veracity.decisions.cache import CachedDecisions
from veracity.decisions.scripted import DecisionResponder, ScriptedDecisions
from veracity.transport import CallFailedError

THREE = {"supported": 0.7, "contradicted": 0.2, "not_enough_information": 0.1}


def _renamed(question: Question, name: str) -> Question:
    return dataclasses.replace(question, name=name)


def _model(
    responder: DecisionResponder | None = None, latency_s: float = 0.05
) -> ScriptedDecisions:
    if responder is None:
        return ScriptedDecisions(table={"choice": THREE}, latency_s=latency_s)
    return ScriptedDecisions(responder, latency_s=latency_s)


async def _two_requests(
    model: ScriptedDecisions, tmp_path: Path, first: DecisionRequest, second: DecisionRequest
) -> tuple[DecisionReply | BaseException, DecisionReply | BaseException, CachedDecisions]:
    cached = CachedDecisions(model, ResponseCache(tmp_path / "cache.sqlite3"))
    one = asyncio.create_task(cached.decide(first, iteration=0))
    await asyncio.sleep(0.01)  # the first request is in flight
    two = asyncio.create_task(cached.decide(second, iteration=0))
    done = await asyncio.gather(one, two, return_exceptions=True)
    return done[0], done[1], cached


async def test_a_question_in_flight_is_waited_for_not_asked_twice(tmp_path: Path) -> None:
    model = _model()
    first = DecisionRequest("state", (claim(0), claim(1)))
    # The same two questions under other names (another system's sample), and one new.
    second = DecisionRequest(
        "state", (_renamed(claim(0), "claim_7"), _renamed(claim(1), "claim_8"), claim(2))
    )
    one, two, cached = await _two_requests(model, tmp_path, first, second)
    assert isinstance(one, DecisionReply) and isinstance(two, DecisionReply)
    asked = [[q.instructions for q in r.questions] for r in model.requests]
    assert asked == [
        [claim(0).instructions, claim(1).instructions],
        [claim(2).instructions],  # only the question nobody was asking
    ]
    # The waiter's answers are the in-flight request's, under its own questions' names.
    assert list(two.answers) == ["claim_7", "claim_8", "claim_2"]
    assert two.answers["claim_7"].probabilities == one.answers["claim_0"].probabilities
    assert two.answers["claim_7"].name == "claim_7" and not two.answers["claim_8"].refused
    assert two.usage.calls == 1  # its own request, for claim_2
    assert len(cached._in_flight) == 0


async def test_a_request_answered_wholly_in_flight_counts_a_cached_call(tmp_path: Path) -> None:
    model = _model()
    request = DecisionRequest("state", (claim(0),))
    one, two, _ = await _two_requests(model, tmp_path, request, request)
    assert isinstance(one, DecisionReply) and isinstance(two, DecisionReply)
    assert len(model.requests) == 1
    assert two.usage.calls == 0 and two.usage.cached_calls == 1
    assert two.answers == one.answers


async def test_a_failed_request_in_flight_leaves_the_waiter_to_ask(tmp_path: Path) -> None:
    calls: list[str] = []

    def failing_first(state: str, question: Question) -> Mapping[str, float] | Exception:
        calls.append(question.name)
        if len(calls) == 1:
            return CallFailedError("HTTP 503: busy")
        return THREE

    model = _model(failing_first)
    request = DecisionRequest("state", (claim(0),))
    one, two, cached = await _two_requests(model, tmp_path, request, request)
    assert isinstance(one, CallFailedError)
    assert isinstance(two, DecisionReply) and not two.answers["claim_0"].refused
    assert two.usage.calls == 1 and len(model.requests) == 2
    assert len(cached._in_flight) == 0


async def test_a_refused_question_in_flight_is_asked_again_by_the_waiter(tmp_path: Path) -> None:
    answered: list[str] = []

    def refusing_first(state: str, question: Question) -> Mapping[str, float] | None:
        answered.append(question.name)
        return None if len(answered) == 1 else THREE

    model = _model(refusing_first)
    request = DecisionRequest("state", (claim(0),))
    one, two, _ = await _two_requests(model, tmp_path, request, request)
    assert isinstance(one, DecisionReply) and one.answers["claim_0"].refused
    assert isinstance(two, DecisionReply) and not two.answers["claim_0"].refused


async def test_a_cancelled_waiter_does_not_cancel_the_request_it_waits_on(
    tmp_path: Path,
) -> None:
    model = _model(latency_s=0.1)
    cached = CachedDecisions(model, ResponseCache(tmp_path / "cache.sqlite3"))
    request = DecisionRequest("state", (claim(0),))
    one = asyncio.create_task(cached.decide(request, iteration=0))
    await asyncio.sleep(0.01)
    two = asyncio.create_task(cached.decide(request, iteration=0))
    await asyncio.sleep(0.01)
    two.cancel()
    reply = await one
    with pytest.raises(asyncio.CancelledError):
        await two
    assert not reply.answers["claim_0"].refused and len(model.requests) == 1
    assert len(cached._in_flight) == 0
