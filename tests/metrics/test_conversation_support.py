"""A claim the contexts leave open but the conversation supports: its own verdict, the
turn as evidence, counted as supported or not as the run says, and counted in the summary
either way. Both judges."""

from __future__ import annotations

import pytest

from tests.helpers import claims_reply, make_sample, verdicts_reply
from veracity import evaluate
from veracity.chat import ScriptedChat
from veracity.config import RunConfig
from veracity.judges import LLMJudge
from veracity.judges.offline import OfflineJudge
from veracity.metrics import Faithfulness, Models, SampleWork
from veracity.types import MetricResult, Sample, Status, Turn

HISTORY = (
    Turn(role="user", content="I live in Ohio and I need a store near me."),
    Turn(role="assistant", content="Which city in Ohio?"),
    Turn(role="user", content="Columbus."),
)
CLAIMS = ("You live in Ohio.", "The Columbus store opens at 9 am.", "The store sells bikes.")
CONTEXTS = ("The Columbus store opens at 9 am on weekdays.",)


def _sample(history: tuple[Turn, ...] = HISTORY) -> Sample:
    return make_sample(answer=" ".join(CLAIMS), contexts=CONTEXTS, history=history)


def _chat(conversation_verdicts: str | None) -> ScriptedChat:
    replies = [
        claims_reply(*CLAIMS),
        verdicts_reply(
            (CLAIMS[0], "not_enough_info", "not in the contexts", ""),
            (CLAIMS[1], "supported", "stated", "opens at 9 am"),
            (CLAIMS[2], "not_enough_info", "bikes are not mentioned", ""),
        ),
    ]
    return ScriptedChat(replies + ([conversation_verdicts] if conversation_verdicts else []))


async def _score(chat: ScriptedChat, metric: Faithfulness, sample: Sample) -> MetricResult:
    work = SampleWork(sample, Models(LLMJudge(chat)), 0, {metric.name: metric})
    return await metric.score(work)


ON_THE_TURN = verdicts_reply(
    (CLAIMS[0], "supported", "the user said so", "I live in Ohio"),
    (CLAIMS[2], "not_enough_info", "nobody said it", ""),
)


async def test_a_claim_the_user_made_is_supported_by_the_conversation() -> None:
    chat = _chat(ON_THE_TURN)
    result = await _score(chat, Faithfulness(), _sample())
    claims = {c["claim"]: c for c in result.details["claims"]}
    assert claims[CLAIMS[0]]["verdict"] == "supported_by_conversation"
    assert claims[CLAIMS[0]]["evidence"] == "I live in Ohio"
    assert claims[CLAIMS[0]]["reason"] == (
        "not in the contexts, but turn 1 (user) supports it (the judge, given the "
        "conversation's turns as contexts: the user said so)"
    )
    assert claims[CLAIMS[2]]["verdict"] == "not_enough_info"
    assert result.score == pytest.approx(2 / 3)  # counted as supported, by default
    assert result.details["supported_by_conversation"] == 1
    assert result.details["counts"]["supported_by_conversation"] == 1
    assert "1 supported by the conversation (counted as supported)" in result.reason
    # The second check asks about the open claims only, against the turns.
    asked = chat.calls[2].messages[-1].content
    assert CLAIMS[0] in asked and CLAIMS[1] not in asked and "Columbus." in asked


async def test_the_run_can_count_it_as_unsupported() -> None:
    metric = Faithfulness(conversation_support_counts=False)
    result = await _score(_chat(ON_THE_TURN), metric, _sample())
    assert result.score == pytest.approx(1 / 3)
    assert result.details["supported_by_conversation"] == 1  # counted either way
    assert "(not counted)" in result.reason


async def test_without_history_or_open_claims_no_second_call() -> None:
    chat = _chat(None)
    result = await _score(chat, Faithfulness(), _sample(history=()))
    assert len(chat.calls) == 2 and "supported_by_conversation" not in result.details


async def test_a_failed_conversation_check_keeps_the_contexts_verdicts_and_says_so() -> None:
    chat = _chat("not json at all, twice")  # the re-ask runs out of script: the call fails
    result = await _score(chat, Faithfulness(), _sample())
    assert result.status is Status.SCORED and result.score == pytest.approx(1 / 3)
    assert any("the conversation could not be checked" in n for n in result.details["notes"])


def test_the_offline_judge_finds_the_users_words_and_the_summary_counts_them() -> None:
    sample = make_sample(
        answer="You live in Columbus, Ohio. The Columbus store opens at 9 am.",
        contexts=CONTEXTS,
        history=(Turn(role="user", content="I live in Columbus, Ohio."),),
    )
    result = evaluate([sample], ["faithfulness"], OfflineJudge(), progress=False)
    (record,) = result.results
    verdicts = [c["verdict"] for c in record.details["claims"]]
    assert verdicts == ["supported_by_conversation", "supported"]
    overall = result.summary["metrics"]["faithfulness"]["overall"]
    assert overall["supported_by_conversation"] == 1
    unsupported = evaluate(
        [sample],
        ["faithfulness"],
        OfflineJudge(),
        config=RunConfig(supported_by_conversation="unsupported"),
        progress=False,
    )
    assert unsupported.results[0].score is not None and record.score is not None
    assert unsupported.results[0].score < record.score


async def _first_and_last_open(claims: tuple[str, str, str], on_the_turns: str) -> MetricResult:
    """Faithfulness of ``claims``: the contexts support the second (as CONTEXTS does CLAIMS'),
    leave the first and last open; the conversation's check answers ``on_the_turns``."""
    chat = ScriptedChat(
        [
            claims_reply(*claims),
            verdicts_reply(
                (claims[0], "not_enough_info", "r", ""),
                (claims[1], "supported", "r", "opens at 9 am"),
                (claims[2], "not_enough_info", "r", ""),
            ),
            on_the_turns,
        ]
    )
    sample = make_sample(answer=" ".join(claims), contexts=CONTEXTS, history=HISTORY)
    return await _score(chat, Faithfulness(), sample)


async def test_a_name_or_number_the_conversation_never_had_is_not_its_support() -> None:
    # A lenient judge calls "opens at 8 am" supported by a turn that has no 8 in it.
    lenient = verdicts_reply(
        (CLAIMS[0], "supported", "the user said so", "I live in Ohio"),
        (CLAIMS[2], "supported", "stores were mentioned", "Which city in Ohio?"),
    )
    claims = (CLAIMS[0], CLAIMS[1], "The Dayton store sells bikes.")
    result = await _first_and_last_open(claims, lenient.replace(CLAIMS[2], claims[2]))
    verdicts = [c["verdict"] for c in result.details["claims"]]
    assert verdicts == ["supported_by_conversation", "supported", "not_enough_info"]


async def test_support_no_turn_holds_is_not_the_conversations() -> None:
    # The 1.5B judge quoted the claim itself as the conversation's evidence: no turn holds
    # the quote, nor most of the claim's words. A paraphrased quote of a claim whose words
    # a turn has is located there.
    claims = ("You live in Ohio.", CLAIMS[1], "The shop sells mountain bikes and helmets.")
    on_the_turns = verdicts_reply(
        (claims[0], "supported", "the user lives there", "the user is from Ohio"),
        (claims[2], "supported", "stores were discussed", claims[2]),
    )
    result = await _first_and_last_open(claims, on_the_turns)
    shown = result.details["claims"]
    assert [c["verdict"] for c in shown] == [
        "supported_by_conversation", "supported", "not_enough_info",
    ]  # fmt: skip
    assert shown[0]["reason"].startswith("not in the contexts, but turn 1 (user) supports it")
    assert any(
        note.startswith("1 claim(s) the judge called supported by the conversation, on evidence")
        for note in result.details["notes"]
    )


async def test_a_sentence_an_earlier_turn_gave_word_for_word_is_the_conversations() -> None:
    # The judge said not_enough_info against the contexts and against the turns alike; the
    # assistant's earlier turn has the claim as one of its sentences, so it is supported
    # there, and the judge's verdict is kept as overruled.
    claim = "The Columbus store sells bikes and repairs them."
    history = (
        Turn(role="user", content="Where can I buy a bike?"),
        Turn(role="assistant", content="The Columbus store sells bikes and repairs them. More?"),
    )
    chat = ScriptedChat(
        [
            claims_reply(claim),
            verdicts_reply((claim, "not_enough_info", "not in the contexts", "")),
            verdicts_reply((claim, "not_enough_info", "the turns do not say", "")),
        ]
    )
    sample = make_sample(answer=claim, contexts=CONTEXTS, history=history)
    result = await _score(chat, Faithfulness(), sample)
    (shown,) = result.details["claims"]
    assert shown["verdict"] == "supported_by_conversation"
    assert shown["overruled"] == "not_enough_info"
    assert shown["reason"].startswith("not in the contexts, but turn 2 (assistant) supports it")
    assert result.details["overruled"] == 1 and result.score == 1.0
