"""Faithfulness: the formula and every edge policy, with the scripted judge."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from tests.helpers import claims_reply, make_sample, verdicts_reply
from veracity.chat import ScriptedChat
from veracity.judges import LLMJudge
from veracity.metrics import Faithfulness, Models, SampleWork
from veracity.metrics.faithfulness import grounded_share
from veracity.transport import CallFailedError
from veracity.types import ClaimVerdict, MetricResult, Sample, Status, Verdict


async def score(
    sample: Sample, chat: ScriptedChat, metric: Faithfulness | None = None
) -> MetricResult:
    metric = metric or Faithfulness()
    # The scripted verdicts quote no evidence: the evidence check is tested on its own.
    judge = LLMJudge(chat, unfounded_support="flag")
    work = SampleWork(sample, Models(judge), 0, {metric.name: metric})
    return await metric.score(work)


async def test_score_is_supported_over_claims_with_three_way_counts() -> None:
    claims = ("Paris is the capital of France.", "Paris has 2 million people.", "Paris is in Peru.")
    chat = ScriptedChat(
        [
            claims_reply(*claims),
            verdicts_reply(
                (claims[0], "supported", "stated", "Paris is the capital and largest city"),
                (claims[1], "not_enough_info", "population not given", ""),
                (claims[2], "contradicted", "context says France", "city of France"),
            ),
        ]
    )
    result = await score(make_sample(), chat)
    assert result.status is Status.SCORED
    assert result.score == pytest.approx(1 / 3)
    assert result.details["counts"] == {
        "supported": 1,
        "contradicted": 1,
        "not_enough_info": 1,
    }
    assert result.details["n_claims"] == 3
    first = result.details["claims"][0]
    assert first == {
        "claim": claims[0],
        "verdict": "supported",
        "reason": "stated",
        "evidence": "Paris is the capital and largest city",
    }
    # 6 of the claims' 15 words are in the supported claim (the answer itself has 11).
    assert result.details["grounded_share"] == round(6 / 15, 4)
    # An LLM judge's labels carry no probability, so there is no expected score.
    assert "expected_score" not in result.details
    assert "expected_grounded_share" not in result.details
    assert result.usage.calls == 2
    assert result.usage.input_tokens > 0
    assert "1 of 3" in result.reason


@pytest.mark.parametrize("answer", ["", "   \n\t "])
async def test_empty_answer_has_no_claims_and_makes_no_call(answer: str) -> None:
    chat = ScriptedChat()
    result = await score(make_sample(answer=answer), chat)
    assert result.status is Status.NO_CLAIMS
    assert result.score == 1.0
    assert chat.calls == []
    assert "empty" in result.reason


async def test_an_answer_the_judge_finds_no_claim_in_is_vacuously_faithful() -> None:
    chat = ScriptedChat([claims_reply()])
    result = await score(make_sample(answer="Paris, then."), chat)
    assert result.status is Status.NO_CLAIMS
    assert result.score == 1.0
    assert len(chat.calls) == 1
    assert "nothing to check, so it scores 1" in result.reason


@pytest.mark.parametrize(
    ("answer", "shown"),
    [
        ("I don't know.", "i don't know"),
        ("I'm sorry, I don't have information about the Q3 budget.", "i don't have information"),
        ("The documents don't answer this.", "the documents don't answer"),
        ("That is not mentioned in the provided documents. Anything else?", "not mentioned in"),
        ("You're welcome!", "you're welcome"),
        ("Thanks, glad I could help.", "thanks, glad i could help"),
    ],
)
@pytest.mark.parametrize("contexts", [("Paris is the capital of France.",), ()])
async def test_an_answer_that_only_abstains_has_no_claims_without_a_call(
    answer: str, shown: str, contexts: tuple[str, ...]
) -> None:
    """Issue 15: abstentions, refusals and thanks are not claims for any judge, and a
    refusal with nothing retrieved is faithful (it was no_contexts, 0)."""
    chat = ScriptedChat()
    result = await score(make_sample(answer=answer, contexts=contexts), chat)
    assert result.status is Status.NO_CLAIMS
    assert result.score == 1.0
    assert chat.calls == []
    assert result.details["abstention"].startswith(shown)
    assert "abstains or is courtesy only" in result.reason


async def test_a_hedge_that_goes_on_to_answer_is_judged() -> None:
    answer = "I'm not sure, but I think Paris is the capital of France."
    claim = "Paris is the capital of France."
    chat = ScriptedChat(
        [claims_reply(claim), verdicts_reply((claim, "supported", "stated", "Paris is"))]
    )
    result = await score(make_sample(answer=answer), chat)
    assert result.status is Status.SCORED
    assert len(chat.calls) == 2


async def test_abstention_phrases_are_configurable() -> None:
    chat = ScriptedChat([claims_reply()])
    metric = Faithfulness(abstention_phrases=("keine ahnung",))
    german = await score(make_sample(answer="Keine Ahnung."), ScriptedChat(), metric)
    assert german.status is Status.NO_CLAIMS
    english = await score(make_sample(answer="I don't know."), chat, metric)
    assert len(chat.calls) == 1  # no longer an abstention: the judge is asked
    assert english.status is Status.NO_CLAIMS


async def test_no_claims_can_be_left_unscored() -> None:
    chat = ScriptedChat([claims_reply()])
    result = await score(make_sample(answer="Hello!"), chat, Faithfulness(no_claims_score=None))
    assert result.status is Status.NO_CLAIMS
    assert result.score is None
    assert "unscored" in result.reason


@pytest.mark.parametrize("contexts", [(), ("",), ("  ", "\n")])
async def test_no_contexts_gives_not_enough_info_without_a_verification_call(
    contexts: tuple[str, ...],
) -> None:
    chat = ScriptedChat([claims_reply("Paris is in France.", "Paris is big.")])
    result = await score(make_sample(contexts=contexts), chat)
    assert result.status is Status.NO_CONTEXTS
    assert result.score == 0.0
    assert len(chat.calls) == 1  # extraction only
    assert {c["verdict"] for c in result.details["claims"]} == {"not_enough_info"}
    assert result.details["counts"]["not_enough_info"] == 2
    assert result.details["grounded_share"] == 0.0


async def test_extraction_failure_is_a_judge_error_with_the_raw_replies() -> None:
    chat = ScriptedChat(["nonsense", "more nonsense"])
    result = await score(make_sample(), chat)
    assert result.status is Status.JUDGE_ERROR
    assert result.score is None
    assert result.reason.startswith("claim extraction failed")
    assert result.details["raw_replies"] == ["nonsense", "more nonsense"]


async def test_verification_failure_is_a_judge_error_keeping_claims_and_raw_replies() -> None:
    chat = ScriptedChat([claims_reply("Paris is in France."), "??", "I cannot do that."])
    result = await score(make_sample(), chat)
    assert result.status is Status.JUDGE_ERROR
    assert result.score is None
    assert result.details["claims"] == ["Paris is in France."]
    assert result.details["raw_replies"] == ["??", "I cannot do that."]
    assert result.usage.calls == 3


async def test_transport_failure_is_a_judge_error() -> None:
    chat = ScriptedChat([CallFailedError("gave up after 8 attempts; last error: HTTP 429")])
    result = await score(make_sample(), chat)
    assert result.status is Status.JUDGE_ERROR
    assert "HTTP 429" in result.reason


async def test_per_claim_verification_option() -> None:
    claims = ("Paris is the capital of France.", "Paris has 2 million people.")
    chat = ScriptedChat(
        [
            claims_reply(*claims),
            verdicts_reply((claims[0], "yes")),
            verdicts_reply((claims[1], "yes")),
        ]
    )
    result = await score(make_sample(), chat, Faithfulness(batch_verification=False))
    assert result.score == 1.0
    assert len(chat.calls) == 3
    assert result.details["verification"] == "per_claim"


async def test_result_serialises_without_nan() -> None:
    chat = ScriptedChat(["x", "y"])
    result = await score(make_sample(), chat)
    text = json.dumps(result.model_dump(mode="json"), allow_nan=False)
    assert "NaN" not in text


async def test_claims_are_extracted_once_per_sample_and_iteration() -> None:
    chat = ScriptedChat(
        [claims_reply("Paris is in France."), verdicts_reply(("Paris is in France.", "yes"))] * 1
        + [verdicts_reply(("Paris is in France.", "yes"))]
    )
    faithfulness = Faithfulness()
    work = SampleWork(make_sample(), Models(LLMJudge(chat)), 0, {"faithfulness": faithfulness})
    first = await faithfulness.score(work)
    second = await Faithfulness(batch_verification=False).score(work)
    extraction_calls = [c for c in chat.calls if c.output.name == "claim_extraction"]
    assert len(extraction_calls) == 1
    assert first.usage.calls == 2
    assert second.usage.calls == 1  # the shared extraction is charged once


@pytest.mark.parametrize("p", [-0.1, 1.5, float("nan")])
def test_a_claim_probability_outside_zero_to_one_is_refused(p: float) -> None:
    with pytest.raises(ValidationError):
        ClaimVerdict(claim="c", verdict=Verdict.SUPPORTED, p_supported=p)


def test_grounded_share_counts_what_the_answer_says_beyond_its_claims() -> None:
    answer = "Paris is the capital of France. Would you like to know more?"
    assert grounded_share(answer, ["Paris is the capital of France."], [1.0]) == 6 / 12
    assert grounded_share(answer, ["Paris is the capital of France."], [0.5]) == 3 / 12
    # Claims the judge reworded at more length than the answer: no share above 1.
    assert grounded_share("It's big.", ["Paris is big.", "Paris is old."], [1.0, 0.0]) == 0.5
    assert grounded_share("", [], []) == 0.0
    with pytest.raises(ValueError):
        grounded_share(answer, ["Paris is the capital of France."], [])
