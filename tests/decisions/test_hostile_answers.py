"""Answers a decision server should not give, read strictly: a question whose answer is
unusable is refused with the reason, the others keep theirs; a body of the wrong shape
fails the request; nothing the server echoes of the key is kept."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from tests.decisions.endpoint import Asked, Reply, serving
from tests.decisions.test_systemone import FAST_RETRY, claim, systemone
from veracity.decisions import DecisionRequest, Option, Question
from veracity.decisions.openai_decisions import OpenAIDecisions
from veracity.decisions.reading import DECLINED, UNANSWERED
from veracity.transport import CallFailedError

KEY = "sk-test-secret-key-123456"
GOOD = {
    "type": "choice",
    "choice": "supported",
    "probabilities": {"supported": 0.7, "contradicted": 0.2, "not_enough_information": 0.1},
}
PREDICATE = Question("faithful", "predicate", "Is it faithful?")
SCORE = Question("rating", "score", "How good?", (Option("low"), Option("high")))


def replying(answers: dict[str, Any], **extra: Any) -> Any:
    def answer(asked: Asked) -> Reply:
        return Reply({"model": "laya-1", "answers": answers, **extra})

    return answer


async def decide(answer: Any, *questions: Question) -> Any:
    with serving(answer) as server:
        model = systemone(server.base_url)
        try:
            return await model.decide(DecisionRequest("state", questions), iteration=0)
        finally:
            await model.aclose()


@pytest.mark.parametrize(
    ("question", "given", "reason"),
    [
        (claim(1), {"type": "noul", "noul": 0.9}, "a 'noul' answer to a choice question"),
        (
            PREDICATE,
            {"type": "choice", **{k: v for k, v in GOOD.items() if k != "type"}},
            "a 'choice' answer",
        ),
        (PREDICATE, {"type": "noul", "noul": math.nan}, "the probability is nan"),
        (PREDICATE, {"type": "noul", "noul": -0.2}, "-0.2, outside [0, 1]"),
        (PREDICATE, {"type": "noul", "noul": 1.5}, "1.5, outside [0, 1]"),
        (PREDICATE, {"type": "noul", "noul": "0.9"}, "not a number"),
        (PREDICATE, {"type": "noul", "noul": True}, "not a number"),
        (PREDICATE, {"type": "noul"}, "not a number"),
        (
            claim(1),
            {
                "type": "choice",
                "probabilities": {
                    "supported": 0.9,
                    "contradicted": 0.5,
                    "not_enough_information": 0.3,
                },
            },
            "probabilities sum to 1.7",
        ),
        (
            claim(1),
            {
                "type": "choice",
                "probabilities": {
                    "supported": 0.9,
                    "contradicted": 0.1,
                    "maybe": 0.0,
                    "not_enough_information": 0.0,
                },
            },
            "options never asked ('maybe')",
        ),
        (
            claim(1),
            {"type": "choice", "probabilities": {"supported": 0.9, "contradicted": 0.1}},
            "no probability for 'not_enough_information'",
        ),
        (
            claim(1),
            {
                "type": "choice",
                "probabilities": {
                    "supported": math.inf,
                    "contradicted": 0.0,
                    "not_enough_information": 0.0,
                },
            },
            "is inf",
        ),
        (
            claim(1),
            {"type": "choice", "probabilities": [0.7, 0.2, 0.1]},
            "no probabilities by option",
        ),
        (claim(1), {**GOOD, "confidence": math.nan}, "the confidence is nan"),
        (
            SCORE,
            {"type": "score", "probabilities": {"0": 0.5, "1": 0.5, "2": 0.0}},
            "never asked ('2')",
        ),
        (claim(1), "supported", "it is not an object"),
    ],
)
async def test_an_unusable_answer_is_a_refusal_with_its_reason(
    question: Question, given: Any, reason: str
) -> None:
    answers = {question.name: given, "claim_0": GOOD}
    reply = await decide(replying(answers), question, claim(0))
    refused = reply.answers[question.name]
    assert refused.refused and refused.probabilities == ()
    assert refused.refusal is not None
    assert refused.refusal.startswith(f"the server's answer to {question.name} is unusable")
    assert reason in refused.refusal
    # The other question of the request keeps its answer.
    assert reply.answers["claim_0"].most_likely() == "supported"


async def test_a_sum_within_rounding_is_renormalised() -> None:
    rounded = {"supported": 0.6667, "contradicted": 0.3333, "not_enough_information": 0.005}
    reply = await decide(
        replying({"claim_0": {"type": "choice", "probabilities": rounded}}), claim(0)
    )
    answer = reply.answers["claim_0"]
    assert not answer.refused
    assert math.fsum(p for _, p in answer.probabilities) == pytest.approx(1.0)


async def test_missing_answers_refusals_and_answers_never_asked() -> None:
    answers = {
        "claim_0": GOOD,
        "claim_2": {"type": "refusal"},
        "claim_9": GOOD,
        "ignore_previous": GOOD,
    }
    reply = await decide(replying(answers), claim(0), claim(1), claim(2))
    assert reply.answers["claim_1"].refusal == UNANSWERED
    assert reply.answers["claim_2"].refusal == DECLINED
    assert not reply.answers["claim_0"].refused
    assert list(reply.answers) == ["claim_0", "claim_1", "claim_2"]
    (note,) = reply.notes
    assert "never asked" in note and "'claim_9'" in note and "'ignore_previous'" in note


@pytest.mark.parametrize(
    "body",
    [[1, 2, 3], {"answers": [GOOD]}, {"answers": "none"}, {"model": "laya-1"}, "a string"],
    ids=["list", "answers-a-list", "answers-a-string", "no-answers", "string"],
)
async def test_a_body_of_the_wrong_shape_fails_the_request(body: object) -> None:
    with pytest.raises(CallFailedError, match="unusable"):
        await decide(lambda _: Reply(body), claim(0))


async def test_a_body_that_is_no_json_is_retried_then_fails() -> None:
    with pytest.raises(CallFailedError, match="3 failed attempts"):
        await decide(lambda _: Reply(b"<html>gateway</html>"), claim(0))


async def test_a_huge_body_is_refused_unread() -> None:
    megabyte = b" " * (1 << 20)
    with serving(lambda _: Reply(chunks=(megabyte,) * 40)) as server:
        model = systemone(server.base_url)
        with pytest.raises(CallFailedError, match="over the bound"):
            await model.decide(DecisionRequest("state", (claim(0),)), iteration=0)
        await model.aclose()
    assert len(server.asked) == 1  # not retried: the same reply again would be as large


async def test_an_echoed_key_is_never_kept() -> None:
    def echoing(asked: Asked) -> Reply:
        return Reply(
            {
                "model": f"laya for {asked.key}",
                "answers": {
                    "claim_0": {"type": "choice", "probabilities": {asked.key: 1.0}},
                    f"Bearer {asked.key}": GOOD,
                },
            }
        )

    reply = await decide(echoing, claim(0))
    kept = json.dumps([reply.model, reply.notes, reply.answers["claim_0"].refusal])
    assert KEY not in kept
    assert "***" in kept


async def test_an_echoed_key_in_an_error_is_never_kept() -> None:
    def echoing(asked: Asked) -> Reply:
        return Reply({"detail": f"bad request for key {asked.key}"}, status=422)

    with pytest.raises(CallFailedError) as raised:
        await decide(echoing, claim(0))
    assert KEY not in str(raised.value)


async def test_openai_answers_read_as_strictly() -> None:
    def answer(asked: Asked) -> Reply:
        return Reply(
            {
                "model": "gpt-6-luna",
                "answers": [
                    {"type": "predicate", "name": "faithful", "probability": 1.3},
                    {
                        "type": "score",
                        "name": "rating",
                        "probabilities": [
                            {"label": "low", "value": 0, "probability": 0.5},
                            {"label": "low", "value": 0, "probability": 0.5},
                        ],
                    },
                    {"type": "predicate", "name": "never_asked", "probability": 0.5},
                ],
                "usage": {"input_tokens": "many"},
            }
        )

    with serving(answer) as server:
        model = OpenAIDecisions(
            "gpt-6-luna", base_url=server.base_url, api_key=KEY, retry=FAST_RETRY
        )
        reply = await model.decide(DecisionRequest("state", (PREDICATE, SCORE)), iteration=0)
        await model.aclose()
    assert "outside [0, 1]" in str(reply.answers["faithful"].refusal)
    assert reply.answers["rating"].refused  # the same level twice: no distribution
    assert any("never_asked" in note for note in reply.notes)
    assert reply.usage.calls == 1 and reply.usage.input_tokens == 0
