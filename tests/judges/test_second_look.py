"""A claim an LLM judge leaves at not_enough_info, whose words stand in a context, is asked
about again: alone, against the context(s) holding its words."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import claims_reply, make_sample, verdicts_reply
from veracity.chat import ScriptedChat
from veracity.chat.cache import CachedChat, ResponseCache
from veracity.judges import LLMJudge
from veracity.judges.llm.claims import holding_contexts
from veracity.judges.llm.evidence import UnfoundedSupport
from veracity.metrics import Faithfulness, Models, SampleWork
from veracity.report import summarize
from veracity.report.groups import caveats
from veracity.transport import CallFailedError
from veracity.types import ClaimVerdict, ResultRecord, Verdict

CONTEXTS = (
    "Bananas are yellow and grow in bunches on large herbaceous plants.",
    "The phone integration needs a live agent as backup for difficult callers.",
    "Opening hours are nine to five on weekdays.",
)
CLAIM = "A live agent is a backup for the phone integration."
OTHER = "Bananas are yellow."


async def _verified(
    chat: ScriptedChat,
    claims: list[str],
    contexts: tuple[str, ...] = CONTEXTS,
    policy: UnfoundedSupport = "flag",
) -> tuple[ClaimVerdict, ...]:
    outcome = await LLMJudge(chat, unfounded_support=policy).verify_claims(
        claims, contexts, iteration=0
    )
    assert outcome.value is not None, outcome.error
    return outcome.value


async def test_support_missed_among_many_passages_is_found_on_a_second_look() -> None:
    evidence = "needs a live agent as backup"
    chat = ScriptedChat(
        [
            verdicts_reply(
                (OTHER, "supported", "said", OTHER), (CLAIM, "not_enough_info", "no", "")
            ),
            verdicts_reply((CLAIM, "supported", "it says so", evidence)),
        ]
    )
    other, looked = await _verified(chat, [OTHER, CLAIM])
    assert other.verdict is Verdict.SUPPORTED and other.first_look is None
    assert looked.verdict is Verdict.SUPPORTED
    assert looked.first_look is Verdict.NOT_ENOUGH_INFO
    assert looked.evidence == evidence
    assert looked.reason == (
        "asked again against context 2 alone: it says so (first look: not_enough_info, no)"
    )
    # The second question holds the one claim and the one passage holding its words.
    second = chat.calls[1].prompt
    assert CLAIM in second and OTHER not in second
    assert CONTEXTS[1] in second
    assert CONTEXTS[0] not in second and CONTEXTS[2] not in second


@pytest.mark.parametrize("again", ["not_enough_info", "contradicted"])
async def test_a_second_look_that_finds_no_support_keeps_the_first_verdict(again: str) -> None:
    chat = ScriptedChat(
        [
            verdicts_reply((CLAIM, "not_enough_info", "first", "")),
            verdicts_reply((CLAIM, again, "second", "as backup")),
        ]
    )
    (verdict,) = await _verified(chat, [CLAIM])
    assert len(chat.calls) == 2
    assert verdict.verdict is Verdict.NOT_ENOUGH_INFO
    assert verdict.reason == "first" and verdict.first_look is None


@pytest.mark.parametrize(
    "failure",
    [CallFailedError("HTTP 500"), "no JSON at all"],
    ids=["call failed", "unusable reply"],
)
async def test_a_failed_second_look_keeps_the_first_verdict_and_says_so(
    failure: Exception | str,
) -> None:
    chat = ScriptedChat([verdicts_reply((CLAIM, "not_enough_info", "first", "")), failure, failure])
    outcome = await LLMJudge(chat).verify_claims([CLAIM], CONTEXTS, iteration=0)
    assert outcome.value is not None and outcome.error is None
    (verdict,) = outcome.value
    assert verdict.verdict is Verdict.NOT_ENOUGH_INFO and verdict.first_look is None
    assert any(
        note.startswith("second look at context 2 gave no verdict") for note in outcome.notes
    )


async def test_an_unusable_second_look_leaves_the_cache_and_a_rerun_asks_it_again(
    tmp_path: Path,
) -> None:
    path = tmp_path / "responses.sqlite3"
    first = verdicts_reply((CLAIM, "not_enough_info", "first", ""))
    unusable = ScriptedChat([first, "no JSON at all", "still none"])
    await LLMJudge(CachedChat(unusable, ResponseCache(path))).verify_claims(
        [CLAIM], CONTEXTS, iteration=0
    )
    # The first look is read from the cache; the second look is asked again, and answered.
    again = ScriptedChat([verdicts_reply((CLAIM, "supported", "ok", "a live agent as backup"))])
    outcome = await LLMJudge(CachedChat(again, ResponseCache(path))).verify_claims(
        [CLAIM], CONTEXTS, iteration=0
    )
    assert len(again.calls) == 1 and CONTEXTS[0] not in again.calls[0].prompt
    assert outcome.value is not None
    assert outcome.value[0].first_look is Verdict.NOT_ENOUGH_INFO


@pytest.mark.parametrize(
    ("first", "claims", "contexts"),
    [
        ("supported", [CLAIM], CONTEXTS),
        ("contradicted", [CLAIM], CONTEXTS),
        # A word of it in no context: nothing to look at again.
        ("not_enough_info", ["A live agent answers in Klingon on Sundays."], CONTEXTS),
        # Asked alone against that context alone already.
        ("not_enough_info", [CLAIM], (CONTEXTS[1],)),
        ("not_enough_info", [CLAIM], (CONTEXTS[1], CONTEXTS[1])),
        # No content words at all.
        ("not_enough_info", ["It is."], CONTEXTS),
    ],
    ids=["supported", "contradicted", "words elsewhere", "alone", "tied alone", "no words"],
)
async def test_no_second_look_where_it_could_tell_nothing_new(
    first: str, claims: list[str], contexts: tuple[str, ...]
) -> None:
    chat = ScriptedChat([verdicts_reply(*((claim, first) for claim in claims))])
    (verdict,) = await _verified(chat, claims, contexts)
    assert len(chat.calls) == 1
    assert verdict.verdict.value == first


async def test_every_context_holding_all_its_words_is_looked_at() -> None:
    contexts = (
        CONTEXTS[1],
        CONTEXTS[0],
        "Callers get a live agent as backup: the phone integration.",
    )
    chat = ScriptedChat(
        [
            verdicts_reply((OTHER, "supported", "", OTHER), (CLAIM, "not_enough_info")),
            verdicts_reply((CLAIM, "supported", "ok", "a live agent as backup")),
        ]
    )
    _, looked = await _verified(chat, [OTHER, CLAIM], contexts)
    assert looked.reason.startswith("asked again against contexts 1, 3 alone: ok")
    assert contexts[0] in chat.calls[1].prompt and contexts[2] in chat.calls[1].prompt
    assert contexts[1] not in chat.calls[1].prompt


async def test_a_second_look_quoting_what_no_context_holds_is_held_to_the_policy() -> None:
    def script() -> ScriptedChat:
        return ScriptedChat(
            [
                verdicts_reply((CLAIM, "not_enough_info", "first", "")),
                verdicts_reply((CLAIM, "supported", "ok", "agents are always available")),
            ]
        )

    (flagged,) = await _verified(script(), [CLAIM], policy="flag")
    assert flagged.verdict is Verdict.SUPPORTED and flagged.evidence_not_found
    (downgraded,) = await _verified(script(), [CLAIM], policy="downgrade")
    assert downgraded.verdict is Verdict.NOT_ENOUGH_INFO and downgraded.reason == "first"


@pytest.mark.parametrize(
    ("claim", "contexts", "expected"),
    [
        (CLAIM, CONTEXTS, (1,)),
        # Shown one passage, a small judge supports a negated copy of its sentence: a claim
        # whose negation its sentence lacks, or a name or number the passage lacks, gets no
        # second look.
        ("A live agent is not a backup for the phone integration.", CONTEXTS, ()),
        ("The phone integration never needs a live agent as backup.", CONTEXTS, ()),
        # One word swapped: "difficult" callers become "angry" ones.
        ("The phone integration needs a live agent as backup for angry callers.", CONTEXTS, ()),
        # A negation added to a sentence that has one already.
        (
            "Wages must not be reported for the week they were earned, not when paid.",
            ("Wages must be reported for the week they were earned, not when paid.",),
            (),
        ),
        (
            "Wages must be reported for the week they were earned, not when paid.",
            ("Wages must be reported for the week they were earned, not when paid.",),
            (0,),
        ),
        ("Bananas are yellow and grow in bunches of 40 on large plants.", CONTEXTS, ()),
        # Every word there, but not the number: "2" and "5" are, "2.5" is not.
        (
            "The fee is 2.5 percent of the loan.",
            ("The fee is 2 percent of the loan, or 5 percent for a late payment.",),
            (),
        ),
        ("Bananas are yellow and grow in bunches on large plants in Peru.", CONTEXTS, ()),
        ("Bananas are yellow and grow in bunches on large plants.", CONTEXTS, (0,)),
        ("", CONTEXTS, ()),
        ("It is.", CONTEXTS, ()),
        ("\x00\x07 \u202e", CONTEXTS, ()),
        (CLAIM, (), ()),
        (CLAIM, ("", "\x00"), ()),
        ("Ünïcödé bäñänäs wächsen", ("Ünïcödé bäñänäs wächsen überall",), (0,)),
        (CLAIM + " [(.*+?)]", ("x" * 1_000_000, CONTEXTS[1]), (1,)),
    ],
    ids=["found", "negated", "never", "a word swapped", "negated twice", "negated alike",
         "number", "number from its digits", "name", "all there", "empty", "no content words",
         "control characters", "no contexts", "empty contexts", "unicode",
         "metacharacters, huge context"],
)  # fmt: skip
def test_where_a_second_look_may_find_support(
    claim: str, contexts: tuple[str, ...], expected: tuple[int, ...]
) -> None:
    assert holding_contexts([claim], contexts) == [expected]
    assert holding_contexts([claim, claim], contexts) == [expected, expected]


async def test_faithfulness_and_the_summary_count_support_found_on_a_second_look() -> None:
    chat = ScriptedChat(
        [
            claims_reply(OTHER, CLAIM),
            verdicts_reply(
                (OTHER, "supported", "said", OTHER), (CLAIM, "not_enough_info", "no", "")
            ),
            verdicts_reply((CLAIM, "supported", "ok", "needs a live agent as backup")),
        ]
    )
    metric = Faithfulness()
    sample = make_sample(answer=f"{OTHER} {CLAIM}", contexts=list(CONTEXTS))
    result = await metric.score(
        SampleWork(sample, Models(LLMJudge(chat)), 0, {"faithfulness": metric})
    )
    assert result.score == 1.0
    assert result.details["supported_on_second_look"] == 1
    assert result.details["claims"][1]["first_look"] == "not_enough_info"
    assert result.usage.calls == 3
    record = ResultRecord(**result.model_dump(), sample_id="s1", system=None, iteration=0)
    overall = summarize([record], ["faithfulness"], {})["metrics"]["faithfulness"]["overall"]
    assert overall["supported_on_second_look"] == 1
    assert (
        "supported on a second look, the claim alone against the context holding its words 1/2"
        in caveats(overall)
    )
