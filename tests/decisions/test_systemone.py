"""The System One client end to end over HTTP: the wire format both ways, splitting at
the server's limits and limits learnt from its refusals."""

from __future__ import annotations

from typing import Any

import pytest

from tests.decisions.endpoint import Asked, Reply, serving
from veracity.decisions import (
    DecisionRequest,
    Option,
    PartlyDecidedError,
    Question,
    ServerLimits,
)
from veracity.decisions.systemone import SystemOne
from veracity.transport import CallFailedError, RetryPolicy

FAST_RETRY = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.02)
LABELS = ("supported", "contradicted", "not_enough_information")


def systemone(base_url: str, **options: Any) -> SystemOne:
    options.setdefault("retry", FAST_RETRY)
    return SystemOne("laya-1", base_url=base_url, api_key="sk-test-secret-key-123456", **options)


def claim(index: int) -> Question:
    return Question(
        f"claim_{index}",
        "choice",
        f"Is claim {index} supported by the state?",
        tuple(Option(label, f"the claim is {label}") for label in LABELS),
    )


def answer_all(asked: Asked) -> Reply:
    """A well-behaved server: every question answered, probabilities summing to one."""
    answers: dict[str, Any] = {}
    for name, question in asked.body["questions"].items():
        kind = question["type"]
        if kind == "noul":
            answers[name] = {"type": "noul", "noul": 0.8}
        elif kind == "choice":
            values = list(question["criteria"])
            share = 0.4 / (len(values) - 1)
            probabilities = {v: (0.6 if i == 0 else share) for i, v in enumerate(values)}
            answers[name] = {
                "type": "choice",
                "choice": values[0],
                "probabilities": probabilities,
                "confidence": 0.5,
            }
        else:
            levels = len(question["criteria"])
            probabilities = {str(i): (1.0 if i == levels - 1 else 0.0) for i in range(levels)}
            answers[name] = {
                "type": "score",
                "score": levels - 1,
                "legend": dict(enumerate(question["criteria"])),
                "probabilities": probabilities,
                "confidence": 0.9,
            }
    usage = {"input_tokens": 10 * len(answers), "output_tokens": 0}
    return Reply({"model": "laya-1-q4", "answers": answers, "usage": usage})


async def test_every_question_type_round_trips() -> None:
    request = DecisionRequest(
        "Paris is the capital of France.",
        (
            Question("faithful", "predicate", "Is the answer faithful to the state?"),
            claim(0),
            Question(
                "relevance",
                "score",
                "How relevant is the answer?",
                (Option("1", "off topic"), Option("2"), Option("3", "on point")),
            ),
        ),
    )
    with serving(answer_all) as server:
        model = systemone(server.base_url)
        reply = await model.decide(request, iteration=0)
        await model.aclose()
    (asked,) = server.asked
    assert asked.path == "/v1/systemone"
    assert asked.body["model"] == "laya-1"
    assert asked.body["state"] == "Paris is the capital of France."
    questions = asked.body["questions"]
    assert questions["faithful"] == {
        "type": "noul",
        "instructions": "Is the answer faithful to the state?",
    }
    assert questions["claim_0"]["criteria"]["contradicted"] == "the claim is contradicted"
    assert questions["relevance"]["criteria"] == ["1: off topic", "2", "3: on point"]
    faithful = reply.answers["faithful"]
    assert faithful.probability("true") == 0.8
    assert faithful.probability("false") == pytest.approx(0.2)
    chosen = reply.answers["claim_0"]
    assert chosen.most_likely() == "supported" and chosen.confidence == 0.5
    assert chosen.probability("not_enough_information") == pytest.approx(0.2)
    # A score's probabilities come by level index and are kept by level label.
    assert reply.answers["relevance"].probabilities == (("1", 0.0), ("2", 0.0), ("3", 1.0))
    assert reply.usage.calls == 1 and reply.usage.input_tokens == 30
    assert reply.usage.output_tokens == 0
    assert reply.model == "laya-1-q4"


async def test_150_questions_go_in_three_requests_at_once() -> None:
    request = DecisionRequest("state", tuple(claim(i) for i in range(150)))
    with serving(answer_all) as server:
        model = systemone(server.base_url)
        reply = await model.decide(request, iteration=0)
        await model.aclose()
    sizes = sorted(len(asked.body["questions"]) for asked in server.asked)
    assert sizes == [50, 50, 50]
    assert list(reply.answers) == [f"claim_{i}" for i in range(150)]
    assert not any(answer.refused for answer in reply.answers.values())
    assert reply.usage.calls == 3 and reply.usage.input_tokens == 1500
    assert reply.notes == ()  # the three requests are in the usage, not in every result


def refusing_over(limit: int, message: str, status: int = 413) -> Any:
    def answer(asked: Asked) -> Reply:
        if len(asked.body["questions"]) > limit:
            return Reply({"error": {"message": message}}, status=status)
        return answer_all(asked)

    return answer


async def test_a_413_naming_its_limit_is_learnt_and_kept() -> None:
    request = DecisionRequest("state", tuple(claim(i) for i in range(60)))
    answer = refusing_over(32, "too many questions: at most 32 questions per request")
    with serving(answer) as server:
        model = systemone(server.base_url)
        first = await model.decide(request, iteration=0)
        refused_then = len(server.asked)
        second = await model.decide(request, iteration=1)
        await model.aclose()
    assert not any(a.refused for a in first.answers.values())
    # One refused request of 60, then two of 30; the next decide splits from the start.
    assert refused_then == 3
    assert [len(a.body["questions"]) for a in server.asked[3:]] == [30, 30]
    assert second.usage.calls == 2
    assert model.limits.max_questions == 32
    described = model.describe()
    assert described["limits"]["max_questions"] == 32
    assert "at most 32 questions" in described["learned"][0]
    assert "413" in described["learned"][0]


async def test_a_limit_error_without_a_number_halves_the_request() -> None:
    request = DecisionRequest("state", tuple(claim(i) for i in range(40)))
    answer = refusing_over(25, "Request Entity Too Large")
    with serving(answer) as server:
        model = systemone(server.base_url)
        reply = await model.decide(request, iteration=0)
        await model.aclose()
    assert [len(a.body["questions"]) for a in server.asked] == [40, 20, 20]
    assert model.limits.max_questions == 20
    assert not any(a.refused for a in reply.answers.values())


async def test_a_422_speaking_of_a_limit_splits_too() -> None:
    request = DecisionRequest("state", tuple(claim(i) for i in range(10)))
    answer = refusing_over(4, "questions: ensure this value has at most 4 items", status=422)
    with serving(answer) as server:
        model = systemone(server.base_url)
        reply = await model.decide(request, iteration=0)
        await model.aclose()
    assert sorted(len(a.body["questions"]) for a in server.asked[1:]) == [3, 3, 4]
    assert not any(a.refused for a in reply.answers.values())


async def test_a_request_still_refused_after_splitting_fails() -> None:
    request = DecisionRequest("state", tuple(claim(i) for i in range(8)))
    with serving(refusing_over(0, "too many questions")) as server:
        model = systemone(server.base_url)
        with pytest.raises(CallFailedError, match="413"):
            await model.decide(request, iteration=0)
        await model.aclose()
    sizes = [len(a.body["questions"]) for a in server.asked]
    # Split once only: the halves (the second may be cancelled before it goes) and no more.
    assert sizes[0] == 8 and set(sizes[1:]) == {4} and len(sizes) <= 3


async def test_a_question_with_too_many_options_is_refused_naming_the_limit() -> None:
    wide = Question("wide", "choice", "Which?", tuple(Option(f"option_{i}") for i in range(30)))
    request = DecisionRequest("state", (claim(0), wide))
    with serving(answer_all) as server:
        model = systemone(server.base_url)
        reply = await model.decide(request, iteration=0)
        await model.aclose()
    assert list(server.asked[0].body["questions"]) == ["claim_0"]
    assert reply.answers["wide"].refusal is not None
    assert "30 options" in reply.answers["wide"].refusal
    assert "26" in reply.answers["wide"].refusal
    assert not reply.answers["claim_0"].refused


async def test_an_option_limit_given_by_the_server_is_learnt() -> None:
    # sparrow-decider's own words for a score of more than 10 levels.
    def answer(asked: Asked) -> Reply:
        widest = max(len(q.get("criteria") or ()) for q in asked.body["questions"].values())
        if widest > 10:
            message = "a score question needs criteria: a list of 2-10 levels, lowest first"
            return Reply({"error": message}, status=422)
        return answer_all(asked)

    scale = Question("scale", "score", "How good?", tuple(Option(str(i)) for i in range(12)))
    request = DecisionRequest("state", (claim(0), scale))
    with serving(answer) as server:
        model = systemone(server.base_url)
        reply = await model.decide(request, iteration=0)
        await model.aclose()
    assert model.limits.max_options == 10
    assert reply.answers["scale"].refused and "12 options" in str(reply.answers["scale"].refusal)
    assert not reply.answers["claim_0"].refused
    assert "at most 10 options" in model.describe()["learned"][0]


async def test_limits_given_are_used_and_validated() -> None:
    request = DecisionRequest("state", tuple(claim(i) for i in range(5)))
    with serving(answer_all) as server:
        model = systemone(server.base_url, limits=ServerLimits(max_questions=2, max_options=5))
        await model.decide(request, iteration=0)
        await model.aclose()
    assert sorted(len(a.body["questions"]) for a in server.asked) == [1, 2, 2]
    with pytest.raises(ValueError, match="at least 1 question"):
        systemone("http://127.0.0.1:9/v1", limits=ServerLimits(max_questions=0, max_options=5))


def test_a_missing_base_url_is_a_clear_value_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SYSTEMONE_BASE_URL", raising=False)
    with pytest.raises(ValueError, match="--base-url or SYSTEMONE_BASE_URL"):
        SystemOne("laya-1")
    monkeypatch.setenv("SYSTEMONE_BASE_URL", "http://127.0.0.1:8080/v1")
    assert SystemOne("laya-1").describe()["base_url"] == "http://127.0.0.1:8080/v1"


def test_learnt_limits_are_adopted_never_above_those_given() -> None:
    model = systemone("http://127.0.0.1:9/v1")
    learnt = {
        "limits": {"max_questions": 16, "max_options": 500, "max_state_tokens": None},
        "learned": ["the server took at most 16 questions per request (HTTP 413)"],
    }
    model.adopt(learnt)
    assert model.limits == ServerLimits(max_questions=16, max_options=26)
    assert model.negotiated()["learned"] == learnt["learned"]
    model.adopt({"limits": "garbage"})  # a record of another version: ignored
    assert model.limits.max_questions == 16


async def test_a_server_over_both_limits_teaches_both_in_one_decide() -> None:
    def limited(asked: Asked) -> Reply:
        questions = asked.body["questions"]
        if len(questions) > 8:
            message = f"The request has {len(questions)} questions, the maximum is 8."
            return Reply({"error": {"message": message}}, status=413)
        for name, question in questions.items():
            if len(question.get("criteria") or ()) > 4:
                message = f"questions.{name}: too many options, at most 4 are supported"
                return Reply({"error": {"message": message}}, status=422)
        return answer_all(asked)

    wide = Question("wide", "choice", "Which?", tuple(Option(f"option_{i}") for i in range(6)))
    request = DecisionRequest("state", (*(claim(i) for i in range(20)), wide))
    with serving(limited) as server:
        model = systemone(server.base_url)
        reply = await model.decide(request, iteration=0)
        await model.aclose()
    assert model.limits == ServerLimits(max_questions=8, max_options=4)
    assert len(model.describe()["learned"]) == 2
    assert "6 options, over the 4" in str(reply.answers["wide"].refusal)
    assert sum(not answer.refused for answer in reply.answers.values()) == 20


def failing_if_asked(name: str) -> Any:
    """A server that fails every attempt at a request holding question ``name``."""

    def answer(asked: Asked) -> Reply:
        if name in asked.body["questions"]:
            return Reply({"error": {"message": "upstream worker crashed"}}, status=500)
        return answer_all(asked)

    return answer


async def test_a_failed_part_keeps_the_answers_and_tokens_of_the_others() -> None:
    request = DecisionRequest("state", tuple(claim(i) for i in range(6)))
    limits = ServerLimits(max_questions=2, max_options=5)
    with serving(failing_if_asked("claim_3")) as server:
        model = systemone(server.base_url, limits=limits)
        with pytest.raises(PartlyDecidedError, match="500") as failed:
            await model.decide(request, iteration=0)
        await model.aclose()
    # Every part was sent (none cancelled by the failure), the failing one three times.
    sent = [tuple(a.body["questions"]) for a in server.asked]
    assert sent.count(("claim_0", "claim_1")) == 1 and sent.count(("claim_4", "claim_5")) == 1
    assert sent.count(("claim_2", "claim_3")) == FAST_RETRY.max_attempts
    reply = failed.value.reply
    assert list(reply.answers) == ["claim_0", "claim_1", "claim_4", "claim_5"]
    assert reply.usage.calls == 2 and reply.usage.input_tokens == 40


async def test_every_part_failing_is_the_server_error_itself() -> None:
    request = DecisionRequest("state", tuple(claim(i) for i in range(4)))
    limits = ServerLimits(max_questions=2, max_options=5)
    with serving(lambda asked: Reply({"error": {"message": "down"}}, status=503)) as server:
        model = systemone(server.base_url, limits=limits)
        with pytest.raises(CallFailedError, match="503") as failed:
            await model.decide(request, iteration=0)
        await model.aclose()
    assert not isinstance(failed.value, PartlyDecidedError)
