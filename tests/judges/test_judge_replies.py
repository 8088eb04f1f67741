"""How an LLM judge reads replies: bounds, re-asks, verdict probabilities, evidence."""

from __future__ import annotations

import json
import math
import re

import pytest

from veracity.chat import ChatReply, ScriptedChat
from veracity.judges import LLMJudge
from veracity.metrics import Faithfulness, Models, SampleWork
from veracity.types import MetricResult, Sample, Status, TokenLogprob, Usage, Verdict

CONTEXTS = ("Paris is the capital and largest city of France.",)
CLAIMS = ("Paris is the capital of France.", "Paris has ten million museums.")


def reply(
    text: str, *, truncated: bool = False, tokens: tuple[TokenLogprob, ...] = ()
) -> ChatReply:
    return ChatReply(
        text, Usage(calls=1, output_tokens=len(text) // 4), 0.0, "m", truncated, tokens
    )


async def faithfulness(chat: ScriptedChat) -> MetricResult:
    sample = Sample(id="a", question="q", answer=" ".join(CLAIMS), contexts=CONTEXTS)
    metric = Faithfulness()
    return await metric.score(SampleWork(sample, Models(LLMJudge(chat)), 0, {metric.name: metric}))


def verdicts(*items: tuple[int, str, str]) -> str:
    return json.dumps(
        {
            "verdicts": [
                {"claim": n, "evidence": e, "reason": "r", "verdict": v} for n, e, v in items
            ]
        }
    )


def tokens_of(
    text: str, alternatives: dict[str, list[tuple[str, float]]]
) -> tuple[TokenLogprob, ...]:
    """``text`` as tokens (words and single characters); at each verdict token the given
    alternatives, with their probabilities."""
    pieces = re.findall(r"\w+|\W", text)
    return tuple(
        TokenLogprob(
            piece,
            math.log(dict(alternatives[piece])[piece]) if piece in alternatives else 0.0,
            tuple((t, math.log(p)) for t, p in alternatives.get(piece, [])),
        )
        for piece in pieces
    )


async def test_a_reply_cut_at_its_bound_is_asked_again_with_twice_the_room() -> None:
    model = ScriptedChat([reply('{"claims": ["Paris is', truncated=True), '{"claims": ["A."]}'])
    outcome = await LLMJudge(model).extract_claims("q", "A.", iteration=0)
    assert outcome.value == ("A.",)
    first, second = (call.output.max_tokens for call in model.calls)
    assert second == 2 * first
    assert any("asked again" in note for note in outcome.notes)


async def test_a_runaway_reply_is_shown_back_in_part_with_what_went_wrong() -> None:
    # At temperature 0 the same question gets the same reply: a model that never closed a
    # string would run on to the doubled bound too, so the re-ask must differ.
    runaway = '{"claims": ["The film quotes Alice.]}\n```python\n' + "x = 1\n" * 600
    model = ScriptedChat([reply(runaway, truncated=True), '{"claims": ["A."]}'])
    outcome = await LLMJudge(model).extract_claims("q", "A.", iteration=0)
    assert outcome.value == ("A.",)
    first, second = model.calls
    shown, reask = second.messages[len(first.messages) :]
    assert shown.role == "assistant" and shown.content.startswith(runaway[:40])
    assert len(shown.content) < len(runaway) / 2
    assert reask.role == "user" and "reached its bound" in reask.content


async def test_json_cut_short_without_a_length_stop_is_never_trusted() -> None:
    # No finish_reason "length", yet the JSON breaks off: repair could close it, but no.
    model = ScriptedChat(['{"claims": ["The Co', '{"claims": ["The Colosseum is in Rome."]}'])
    outcome = await LLMJudge(model).extract_claims("q", "The Colosseum is in Rome.", iteration=0)
    assert outcome.value == ("The Colosseum is in Rome.",)
    assert len(model.calls) == 2


async def test_a_reply_cut_twice_is_a_judge_error_with_the_reason() -> None:
    cut = reply('{"claims": ["Paris', truncated=True)
    model = ScriptedChat([cut, cut])
    outcome = await LLMJudge(model).extract_claims("q", "Paris.", iteration=0)
    assert outcome.value is None
    assert outcome.error is not None and "cut off" in outcome.error
    assert len(outcome.raw_replies) == 2


async def test_verdicts_are_matched_by_claim_number_not_position() -> None:
    text = verdicts((2, "", "not_enough_info"), (1, CONTEXTS[0], "supported"))
    outcome = await LLMJudge(ScriptedChat([text])).verify_claims(CLAIMS, CONTEXTS, iteration=0)
    assert outcome.value is not None
    assert [v.verdict for v in outcome.value] == [Verdict.SUPPORTED, Verdict.NOT_ENOUGH_INFO]


async def test_p_supported_comes_from_the_verdict_tokens_alternatives() -> None:
    text = verdicts((1, CONTEXTS[0], "supported"), (2, "", "not_enough_info"))
    tokens = tokens_of(
        text,
        {
            "supported": [("supported", 0.8), ("contr", 0.15), ("not", 0.05)],
            "not_enough_info": [("not_enough_info", 0.7), ("supported", 0.3)],
        },
    )
    outcome = await LLMJudge(ScriptedChat([reply(text, tokens=tokens)])).verify_claims(
        CLAIMS, CONTEXTS, iteration=0
    )
    assert outcome.value is not None
    assert [v.p_supported for v in outcome.value] == [
        pytest.approx(0.8),
        pytest.approx(0.3),
    ]


async def test_faithfulness_is_the_mean_p_supported() -> None:
    extraction = json.dumps({"claims": list(CLAIMS)})
    text = verdicts((1, CONTEXTS[0], "supported"), (2, "", "not_enough_info"))
    tokens = tokens_of(
        text,
        {
            "supported": [("supported", 0.9), ("contr", 0.1)],
            "not_enough_info": [("not_enough_info", 0.6), ("supported", 0.4)],
        },
    )
    record = await faithfulness(ScriptedChat([extraction, reply(text, tokens=tokens)]))
    assert record.status is Status.SCORED
    assert record.score == pytest.approx((0.9 + 0.4) / 2)
    assert record.details["scored_by"] == "p_supported"
    assert record.details["supported_share"] == 0.5


async def test_without_token_probabilities_the_score_is_the_supported_share() -> None:
    extraction = json.dumps({"claims": list(CLAIMS)})
    text = verdicts((1, CONTEXTS[0], "supported"), (2, "", "contradicted"))
    record = await faithfulness(ScriptedChat([extraction, text]))
    assert record.score == 0.5 and record.details["scored_by"] != "p_supported"


async def test_with_the_downgrade_policy_unfounded_support_is_not_enough_info() -> None:
    text = verdicts(
        (1, "Paris is the capital and largest city of France", "supported"),  # found
        (2, '<context index="1">', "supported"),  # our own markup, quoted back
    )
    judge = LLMJudge(ScriptedChat([text]), unfounded_support="downgrade")
    outcome = await judge.verify_claims(CLAIMS, CONTEXTS, iteration=0)
    assert outcome.value is not None
    assert [v.evidence_not_found for v in outcome.value] == [None, True]
    assert [v.verdict for v in outcome.value] == [Verdict.SUPPORTED, Verdict.NOT_ENOUGH_INFO]
    assert "evidence quoted is not in the contexts" in outcome.value[1].reason


async def test_by_default_unfounded_support_is_only_flagged() -> None:
    # The default since the 1.5B judge's fit half ranked better with it (docs/benchmarks.md).
    text = verdicts((1, CONTEXTS[0], "supported"), (2, "Paris has many museums.", "supported"))
    judge = LLMJudge(ScriptedChat([text]))
    outcome = await judge.verify_claims(CLAIMS, CONTEXTS, iteration=0)
    assert outcome.value is not None
    assert [v.verdict for v in outcome.value] == [Verdict.SUPPORTED, Verdict.SUPPORTED]
    assert [v.evidence_not_found for v in outcome.value] == [None, True]
    assert judge.describe()["unfounded_support"] == "flag"


async def test_rubric_scores_are_probability_weighted_but_pass_as_written() -> None:
    from veracity.metrics import RubricMetric

    text = json.dumps(
        {
            "scores": [
                {"dimension": "faithfulness", "reasoning": "ok", "score": 4},
                {"dimension": "completeness", "reasoning": "thin", "score": 3},
            ]
        }
    )
    tokens = tokens_of(text, {"4": [("4", 0.6), ("5", 0.4)], "3": [("3", 0.5), ("2", 0.5)]})
    metric = RubricMetric()
    sample = Sample(id="a", question="q", answer="a", contexts=CONTEXTS)
    chat = ScriptedChat([reply(text, tokens=tokens)])
    result = await metric.score(
        SampleWork(sample, Models(LLMJudge(chat)), 0, {metric.name: metric})
    )
    dimensions = result.details["dimensions"]
    assert [d["expected"] for d in dimensions] == [pytest.approx(4.4), pytest.approx(2.5)]
    assert result.details["overall"] == pytest.approx((4.4 + 2.5) / 2)
    assert result.details["passed"] is False  # completeness 3 < 4, as written


async def test_g_eval_criteria_weigh_single_token_scores_only() -> None:
    text = json.dumps(
        {
            "correctness": {"reasoning": "r", "score": 80},
            "completeness": {"reasoning": "r", "score": 60},
            "consistency": {"reasoning": "r", "score": 100},
        }
    )
    # "80" one token (as OpenAI's tokenizers write it); "60" and "100" split into digits.
    tokens = tuple(
        TokenLogprob(piece, math.log(0.5), (("80", math.log(0.5)), ("90", math.log(0.5))))
        if piece == "80"
        else TokenLogprob(piece, 0.0, ((piece, 0.0),))
        for piece in re.findall(r"80|\d|[A-Za-z_]+|\W", text)
    )
    outcome = await LLMJudge(ScriptedChat([reply(text, tokens=tokens)])).grade_factual_accuracy(
        "q", "a", "r", iteration=0
    )
    assert outcome.value is not None
    assert outcome.value.correctness.expected == pytest.approx(85.0)
    assert outcome.value.completeness.expected is None
    assert outcome.value.consistency.expected is None
