"""The second opinion every faithfulness result carries: word overlap, names and numbers
missing from the contexts, negation flips, claims found word for word; and the caveats
when the judge calls such a claim supported, or a claim found word for word not."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import claims_reply, make_sample, verdicts_reply
from veracity.chat import ScriptedChat
from veracity.judges import LLMJudge
from veracity.metrics import Faithfulness, Models, SampleWork
from veracity.metrics.local_signals import (
    answer_overlap,
    claim_signals,
    local_signals,
    yes_no_reply,
)
from veracity.report import summarize
from veracity.report.groups import caveats
from veracity.types import MetricResult, ResultRecord, Status

CONTEXT = "The Eiffel Tower was completed in 1889 in Paris. It is not made of wood."


def test_a_claim_found_word_for_word_overlaps_fully_and_misses_nothing() -> None:
    (found,) = claim_signals(["The Eiffel Tower was completed in 1889."], [CONTEXT])
    assert found.overlap == 1.0
    assert (found.missing_names, found.missing_numbers, found.negation_flip) == ((), (), False)
    assert not found.unbacked


def test_a_swapped_name_and_number_are_named() -> None:
    (found,) = claim_signals(["The Eiffel Tower in Lyon was completed in 1899."], [CONTEXT])
    assert found.missing_names == ("Lyon",)
    assert found.missing_numbers == ("1899",)
    assert found.unbacked
    assert 0 < found.overlap < 1


def test_a_negation_the_closest_sentence_lacks_is_a_flip() -> None:
    flipped, kept = claim_signals(
        ["The Eiffel Tower was not completed in 1889.", "It is not made of wood."], [CONTEXT]
    )
    assert flipped.negation_flip
    assert not kept.negation_flip


def test_a_claim_sharing_nothing_with_the_contexts_does_not_flip() -> None:
    (found,) = claim_signals(["Bananas are never blue."], [CONTEXT])
    assert found.overlap == 0.0
    assert not found.negation_flip


def test_answer_overlap_is_the_share_of_words_found_and_one_without_words() -> None:
    assert answer_overlap("The tower in Paris.", [CONTEXT]) == 1.0
    assert answer_overlap("The tower in Rome.", [CONTEXT]) == pytest.approx(3 / 4)
    assert answer_overlap("...", [CONTEXT]) == 1.0


def test_hostile_text_is_handled_in_bounded_time() -> None:
    long_context = "word " * 200_000 + "\x1b[2J" + "é" * 1000
    summary, per_claim = local_signals("A claim \x00 with 12 Names.", ["A claim"], [long_context])
    assert summary["claims"][0]["missing_numbers"] == []  # "A claim" has no number
    assert len(per_claim) == 1


async def _judged(*verdicts: tuple[str, str]) -> tuple[MetricResult, dict[str, Any]]:
    """Faithfulness of an answer made of the claims, with the scripted judge's verdicts
    (claim, label), and the summary's overall figures of that one result."""
    claims = [claim for claim, _ in verdicts]
    chat = ScriptedChat(
        [
            claims_reply(*claims),
            verdicts_reply(*((claim, label, "r", "") for claim, label in verdicts)),
        ]
    )
    sample = make_sample(answer=" ".join(claims), contexts=[CONTEXT])
    metric = Faithfulness()
    judge = LLMJudge(chat, unfounded_support="flag")
    result = await metric.score(SampleWork(sample, Models(judge), 0, {metric.name: metric}))
    record = ResultRecord(**result.model_dump(), sample_id="s1", system=None, iteration=0)
    overall = summarize([record], ["faithfulness"], {})["metrics"]["faithfulness"]["overall"]
    return result, overall


async def test_every_faithfulness_result_carries_signals_and_counts_unbacked_support() -> None:
    result, overall = await _judged(
        ("The Eiffel Tower was completed in 1889.", "supported"),
        ("It was designed by Gustave Eiffel.", "supported"),
    )
    signals = result.details["local_signals"]
    assert signals["claims_missing_name"] == 1  # "Gustave" is in no context
    assert signals["claims"][1]["missing_names"] == ["Gustave"]
    assert result.details["unbacked_support"] == 1
    assert overall["unbacked_support"] == 1
    assert "supported, name or number not in contexts 1/2" in caveats(overall)


@pytest.mark.parametrize(
    ("claim", "verbatim"),
    [
        ("The Eiffel Tower was completed in 1889 in Paris.", True),
        ("the eiffel tower WAS completed in 1889, in Paris", True),  # case, punctuation
        ("The Eiffel Tower was completed in 1889 in Lyon.", False),
        ("Completed in 1889 in Paris.", False),  # five words: too short to tell
        ("Tower was completed in 1889 in", True),
        ("It is not made of wood at all.", False),
    ],
)
def test_a_claim_standing_word_for_word_in_a_context(claim: str, verbatim: bool) -> None:
    (found,) = claim_signals([claim], [CONTEXT, "Bananas are yellow."])
    assert found.verbatim is verbatim
    assert found.as_dict()["verbatim"] is verbatim


def test_a_verbatim_claim_is_searched_for_not_copied_word_by_word() -> None:
    import tracemalloc

    from veracity.judges.verbatim import verbatim_in
    from veracity.text.analysis import casefolded

    context = "Filler text, of no consequence; " * 32_000 + "It’s the last line of a long page."
    (found,) = claim_signals(["It's the last line of a long page"], [context])
    assert found.verbatim
    folded = (casefolded(context),)
    tracemalloc.start()
    try:
        assert not verbatim_in("It's the first line of a long page", folded)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100_000  # a 1 MB context is searched, not split into its 160,000 words


async def test_a_verbatim_claim_the_judge_does_not_support_is_a_caveat() -> None:
    result, overall = await _judged(
        # Word for word, but part of a longer sentence ("… in Paris."): not overruled.
        ("The Eiffel Tower was completed in 1889", "not_enough_info"),
        ("It is made of steel.", "not_enough_info"),
    )
    assert result.score == 0.0  # the caveat says so; it changes no verdict
    assert "overruled" not in result.details
    assert result.details["verbatim_not_supported"] == 1
    assert [c["verbatim"] for c in result.details["local_signals"]["claims"]] == [True, False]
    assert overall["verbatim_not_supported"] == 1
    assert "not supported, yet word for word in a context 1/2" in caveats(overall)


async def test_a_claim_a_context_states_word_for_word_is_supported_over_the_judge() -> None:
    result, overall = await _judged(
        ("The Eiffel Tower was completed in 1889 in Paris.", "not_enough_info"),
        ("It is made of steel.", "not_enough_info"),
    )
    stated, other = result.details["claims"]
    assert stated["verdict"] == "supported"
    assert stated["overruled"] == "not_enough_info"
    assert stated["reason"] == (
        "context 1 states it word for word; the judge said not_enough_info (r)"
    )
    assert stated["evidence"] == "The Eiffel Tower was completed in 1889 in Paris."
    assert other["verdict"] == "not_enough_info" and "overruled" not in other
    assert result.score == 0.5
    assert result.details["overruled"] == 1
    assert "verbatim_not_supported" not in result.details
    assert overall["overruled"] == 1
    assert "supported over the judge, stated word for word in a context 1/2" in caveats(overall)


@pytest.mark.parametrize(
    "evidence",
    [
        "",
        "It is not made of wood.",
        "completed in 1899",
        "The Eiffel Tower was completed in 1889 in Paris. It is not made of wood.",  # more
    ],
)
async def test_a_contradiction_on_other_words_stands_though_a_context_states_the_claim(
    evidence: str,
) -> None:
    # Contexts may say both ("… This is a myth."): a contradiction that quotes other words,
    # or none, is kept, and the caveat counts it.
    claim = "The Eiffel Tower was completed in 1889 in Paris."
    result = await _contradicted(claim, evidence)
    (shown,) = result.details["claims"]
    assert shown["verdict"] == "contradicted" and "overruled" not in shown
    assert result.details["verbatim_not_supported"] == 1


@pytest.mark.parametrize(
    "evidence",
    [
        "The Eiffel Tower was completed in 1889 in Paris.",
        "completed in 1889",  # a part of the claim
        "Paris",
    ],
)
async def test_a_contradiction_quoting_the_claims_own_words_is_overruled(evidence: str) -> None:
    claim = "The Eiffel Tower was completed in 1889 in Paris."
    result = await _contradicted(claim, evidence)
    (shown,) = result.details["claims"]
    assert shown["verdict"] == "supported" and shown["overruled"] == "contradicted"
    assert shown["reason"] == (
        "context 1 states it word for word; the judge said contradicted, quoting the "
        "claim's own words (r)"
    )
    assert result.score == 1.0 and result.details["overruled"] == 1


async def _contradicted(claim: str, evidence: str) -> MetricResult:
    chat = ScriptedChat(
        [claims_reply(claim), verdicts_reply((claim, "contradicted", "r", evidence))]
    )
    metric = Faithfulness()
    sample = make_sample(answer=claim, contexts=[CONTEXT])
    work = SampleWork(sample, Models(LLMJudge(chat)), 0, {metric.name: metric})
    return await metric.score(work)


async def test_an_abstention_keeps_the_answer_overlap_for_calibration() -> None:
    metric = Faithfulness()
    sample = make_sample(answer="I don't know.", contexts=[CONTEXT])
    work = SampleWork(sample, Models(LLMJudge(ScriptedChat([]))), 0, {metric.name: metric})
    result = await metric.score(work)
    assert result.status is Status.NO_CLAIMS
    assert result.details["local_signals"]["claims"] == []
    assert 0 <= result.details["local_signals"]["answer_overlap"] < 1


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        ("Are Jane and First for Women both women's magazines?", "yes", True),
        ("Were they founded in the same year?", "No, they were not.", True),
        ("Did he win?", "Yep!", True),
        ("I read about the tower. Is it in Paris?", "Yes, it is.", True),
        # An answer with content of its own is checked as claims, not as a bare reply.
        ("Is it in Paris?", "No, it is in Lyon.", False),
        # A question that no yes or no answers.
        ("Where is the tower?", "Yes.", False),
        ("Is it in Paris?", "Nobody knows.", False),
        ("Is it in Paris?", "", False),
    ],
)
def test_a_bare_yes_or_no_to_a_yes_no_question(question: str, answer: str, expected: bool) -> None:
    assert yes_no_reply(question, answer) is expected


def test_the_yes_no_signal_is_kept_for_an_answer_without_claims_only() -> None:
    question = "Is the tower in Paris?"
    assert local_signals("Yes.", [], [CONTEXT], question)[0]["yes_no_reply"] is True
    with_claims = local_signals("Yes, the tower is in Paris.", ["The tower is in Paris."],
                                [CONTEXT], question)  # fmt: skip
    assert with_claims[0]["yes_no_reply"] is False


def test_the_yes_no_signal_reads_huge_and_odd_text_in_bounded_time() -> None:
    long_question = "Background. " * 100_000 + "Is the tower in Paris?"
    assert yes_no_reply(long_question, "Yes.\x00") is True
    assert yes_no_reply("Is it?", "yes " + "really " * 100_000) is False
    # Read from its end: a question whose last thousand characters are marks is none.
    assert yes_no_reply("Is it?" + "?" * 100_000, "No") is False
    assert yes_no_reply("\u202eIs it?", "\u200bno\u200b") is False  # not an auxiliary first
