"""Decision answers in the judge-response cache, question by question, and the limits a
server taught one run carried to the next."""

from __future__ import annotations

import pickle
from pathlib import Path

from tests.decisions.endpoint import Asked, Reply, serving
from tests.decisions.test_systemone import answer_all, claim, systemone
from veracity.chat.cache import ResponseCache
from veracity.decisions import DecisionRequest, ServerLimits
from veracity.decisions.cache import CachedDecisions


async def test_a_request_asked_again_makes_no_request(tmp_path: Path) -> None:
    request = DecisionRequest("state", tuple(claim(i) for i in range(4)))
    cache = ResponseCache(tmp_path / "cache.sqlite3")
    with serving(answer_all) as server:
        model = CachedDecisions(systemone(server.base_url), cache)
        first = await model.decide(request, iteration=0)
        again = await model.decide(request, iteration=0)
        other_iteration = await model.decide(request, iteration=1)
        await model.aclose()
    cache.close()
    assert len(server.asked) == 2  # the first decide and the other iteration's
    assert first.usage.calls == 1 and first.usage.cached_calls == 0
    assert again.usage.calls == 0 and again.usage.cached_calls == 1
    assert again.answers == first.answers
    assert again.model == "laya-1-q4"
    assert other_iteration.usage.calls == 1


async def test_only_the_questions_not_cached_are_asked(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache.sqlite3")
    with serving(answer_all) as server:
        model = CachedDecisions(systemone(server.base_url), cache)
        await model.decide(DecisionRequest("state", (claim(0), claim(1))), iteration=0)
        whole = DecisionRequest("state", tuple(claim(i) for i in range(4)))
        reply = await model.decide(whole, iteration=0)
        await model.aclose()
    cache.close()
    assert list(server.asked[1].body["questions"]) == ["claim_2", "claim_3"]
    assert list(reply.answers) == ["claim_0", "claim_1", "claim_2", "claim_3"]
    assert all(not answer.refused for answer in reply.answers.values())
    assert reply.usage.calls == 1


async def test_refusals_are_not_cached(tmp_path: Path) -> None:
    def leaving_out_claim_1(asked: Asked) -> Reply:
        reply = answer_all(asked)
        assert isinstance(reply.body, dict)
        reply.body["answers"].pop("claim_1", None)
        return reply

    request = DecisionRequest("state", (claim(0), claim(1)))
    cache = ResponseCache(tmp_path / "cache.sqlite3")
    with serving(leaving_out_claim_1) as server:
        model = CachedDecisions(systemone(server.base_url), cache)
        first = await model.decide(request, iteration=0)
        await model.decide(request, iteration=0)
        await model.aclose()
    cache.close()
    assert first.answers["claim_1"].refused
    assert list(server.asked[1].body["questions"]) == ["claim_1"]


async def test_a_learnt_limit_is_where_the_next_run_starts(tmp_path: Path) -> None:
    def at_most_8(asked: Asked) -> Reply:
        if len(asked.body["questions"]) > 8:
            return Reply({"error": "at most 8 questions per request"}, status=413)
        return answer_all(asked)

    path = tmp_path / "cache.sqlite3"
    with serving(at_most_8) as server:
        cache = ResponseCache(path)
        model = CachedDecisions(systemone(server.base_url), cache)
        await model.decide(
            DecisionRequest("state", tuple(claim(i) for i in range(16))), iteration=0
        )
        await model.aclose()
        cache.close()
        refused_in_first_run = len(server.asked)

        cache = ResponseCache(path)
        next_run = CachedDecisions(systemone(server.base_url), cache)
        assert next_run.limits == ServerLimits(max_questions=8, max_options=26)
        assert "at most 8 questions" in next_run.describe()["learned"][0]
        fresh = DecisionRequest("another state", tuple(claim(i) for i in range(16)))
        await next_run.decide(fresh, iteration=0)
        # The learnt limit is no part of an answer's key: the first run's answers serve.
        same = DecisionRequest("state", tuple(claim(i) for i in range(16)))
        cached = await next_run.decide(same, iteration=0)
        await next_run.aclose()
        cache.close()
    assert refused_in_first_run == 3
    assert [len(a.body["questions"]) for a in server.asked[3:]] == [8, 8]
    assert cached.usage.calls == 0 and cached.usage.cached_calls == 1


async def test_a_model_pickles_for_another_process_with_what_it_learnt() -> None:
    # As a run ships its judge to Ray's workers: before the run's first call.
    with serving(answer_all) as server:
        model = systemone(server.base_url)
        model.adopt({"limits": {"max_questions": 2, "max_options": 26}, "learned": ["at most 2"]})
        copy = pickle.loads(pickle.dumps(model))
        request = DecisionRequest("state", tuple(claim(i) for i in range(3)))
        reply = await copy.decide(request, iteration=0)
        await copy.aclose()
    assert not any(answer.refused for answer in reply.answers.values())
    assert sorted(len(a.body["questions"]) for a in server.asked) == [1, 2]
    assert copy.describe()["learned"] == ["at most 2"]
