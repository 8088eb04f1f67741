"""A verification reply cut at its bound is not asked again as it was: the claims without a
complete verdict are asked one at a time, their evidence bounded in words."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from veracity.chat import ChatReply, OpenAIChat, ScriptedChat
from veracity.chat.cache import CachedChat, ResponseCache
from veracity.judges import LLMJudge
from veracity.judges.llm.cut_replies import closed_items
from veracity.metrics import Faithfulness, Models, SampleWork
from veracity.prompts import (
    CLAIM_EXTRACTION,
    CLAIM_VERIFICATION,
    CLAIM_VERIFICATION_ALONE,
    EVIDENCE_WORDS,
    ChatMessage,
    OutputSpec,
)
from veracity.testing import FakeLLMServer
from veracity.testing._request import ChatRequest
from veracity.transport import CallFailedError, RetryPolicy
from veracity.types import MetricResult, Sample, Status, Usage, Verdict

CONTEXTS = (
    "Ada Lovelace was an English mathematician. She wrote the first published program, "
    "for Charles Babbage's Analytical Engine, in 1843.",
    "Charles Babbage designed the Analytical Engine but never finished building it.",
)
CLAIMS = (
    "Ada Lovelace was an English mathematician.",
    "Ada Lovelace wrote the first published program in 1843.",
    "Ada Lovelace finished building the Analytical Engine.",
)
RUNAWAY = " ".join([CONTEXTS[0]] * 40)  # evidence copied on and on, as a 1.5B judge does


def cut(text: str) -> ChatReply:
    return ChatReply(text, Usage(calls=1, output_tokens=608), 0.0, "m", truncated=True)


def verdict(n: int, evidence: str, label: str) -> dict[str, object]:
    return {"claim": n, "evidence": evidence, "reason": "r", "verdict": label}


def one_verdict(evidence: str, label: str) -> str:
    return json.dumps({"verdicts": [verdict(1, evidence, label)]})


# The batched reply closes claim 1's verdict, then runs on in claim 2's evidence.
CUT_AFTER_ONE = json.dumps({"verdicts": [verdict(1, "an English mathematician", "supported")]})[
    :-2
] + (', {"claim": 2, "evidence": "' + RUNAWAY)


def asked_claim(messages: Sequence[ChatMessage]) -> str:
    task = next(m.content for m in messages if m.role == "user")
    found = re.search(r'<claim index="1">\n(.*?)\n</claim>', task, re.DOTALL)
    assert found is not None
    return found.group(1)


def judge_alone(messages: Sequence[ChatMessage], output: OutputSpec) -> str:
    """A judge asked one claim: supported for claim 2, not_enough_info for claim 3."""
    assert output.name == CLAIM_VERIFICATION_ALONE.id
    claim = asked_claim(messages)
    if claim == CLAIMS[1]:
        return one_verdict("wrote the first published program", "supported")
    return one_verdict("", "not_enough_info")


async def faithfulness(chat: ScriptedChat | CachedChat) -> MetricResult:
    sample = Sample(id="a", question="q", answer=" ".join(CLAIMS), contexts=CONTEXTS)
    metric = Faithfulness()
    return await metric.score(SampleWork(sample, Models(LLMJudge(chat)), 0, {metric.name: metric}))


def script() -> list[str | ChatReply]:
    return [json.dumps({"claims": list(CLAIMS)}), cut(CUT_AFTER_ONE)]


async def test_a_cut_reply_is_followed_by_each_remaining_claim_asked_alone_bounded() -> None:
    chat = ScriptedChat(script(), responder=judge_alone)
    record = await faithfulness(chat)

    assert record.status is Status.SCORED, record.reason
    names = [call.output.name for call in chat.calls]
    # Never the batched question again: the two claims without a verdict, one call each.
    assert names == [CLAIM_EXTRACTION.id, CLAIM_VERIFICATION.id] + [CLAIM_VERIFICATION_ALONE.id] * 2
    alone = chat.calls[2:]
    assert sorted(asked_claim(call.messages) for call in alone) == sorted(CLAIMS[1:])
    for call in alone:
        assert call.output.max_tokens == CLAIM_VERIFICATION_ALONE.max_tokens
        assert call.output.max_tokens < chat.calls[1].output.max_tokens
        assert f"quote at most {EVIDENCE_WORDS} words" in call.messages[0].content
        assert len(call.messages) == 2  # a question of its own, not a re-ask of the cut one
    # The verdict closed before the cut is kept; the claims asked alone are scored.
    verdicts = [c["verdict"] for c in record.details["claims"]]
    assert verdicts == ["supported", "supported", "not_enough_info"]
    assert record.score == 2 / 3
    [note] = [n for n in record.details["notes"] if "one at a time" in n]
    assert "bound of" in note and "kept the 1 verdict" in note and "other 2 claim(s)" in note
    assert f"at most {EVIDENCE_WORDS} words" in note


async def test_json_breaking_off_without_a_length_stop_counts_as_cut() -> None:
    chat = ScriptedChat(
        [json.dumps({"claims": list(CLAIMS)}), CUT_AFTER_ONE], responder=judge_alone
    )
    record = await faithfulness(chat)
    assert record.status is Status.SCORED, record.reason
    assert [c.output.name for c in chat.calls[2:]] == [CLAIM_VERIFICATION_ALONE.id] * 2


async def test_a_claim_asked_alone_and_cut_again_is_a_judge_error_not_a_verdict() -> None:
    def runaway_on_claim_3(messages: Sequence[ChatMessage], output: OutputSpec) -> str | ChatReply:
        if asked_claim(messages) == CLAIMS[2]:
            return '{"verdicts": [{"claim": 1, "evidence": "' + RUNAWAY[:600]
        return judge_alone(messages, output)

    chat = ScriptedChat(script(), responder=runaway_on_claim_3)  # type: ignore[arg-type]
    record = await faithfulness(chat)

    assert record.status is Status.JUDGE_ERROR
    assert record.score is None
    assert record.reason is not None and CLAIMS[2] in record.reason
    assert "cut" in record.reason
    # Claim 3 was asked once alone: no third try at it, and never the batch again.
    alone_3 = [c for c in chat.calls[2:] if asked_claim(c.messages) == CLAIMS[2]]
    assert len(alone_3) == 1
    assert chat.calls[1].output.name == CLAIM_VERIFICATION.id
    assert all(c.output.name == CLAIM_VERIFICATION_ALONE.id for c in chat.calls[2:])
    raw = record.details["raw_replies"]
    assert any(RUNAWAY[:100] in r for r in raw)


async def test_a_single_claim_cut_is_asked_alone_bounded_once() -> None:
    chat = ScriptedChat(
        [cut('{"verdicts": [{"claim": 1, "evidence": "' + RUNAWAY)],
        responder=judge_alone,
    )
    outcome = await LLMJudge(chat).verify_claims([CLAIMS[1]], CONTEXTS, iteration=0, batch=False)
    assert outcome.value is not None, outcome.error
    assert [v.verdict for v in outcome.value] == [Verdict.SUPPORTED]
    assert [c.output.name for c in chat.calls] == [
        CLAIM_VERIFICATION.id,
        CLAIM_VERIFICATION_ALONE.id,
    ]


async def test_a_re_run_replays_the_cut_reply_as_cut_from_the_cache(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    chat = ScriptedChat(script(), responder=judge_alone)
    first = await faithfulness(CachedChat(chat, ResponseCache(path)))
    assert first.status is Status.SCORED
    assert len(ResponseCache(path)) == 4  # extraction, the cut reply, two claims alone

    # A judge that fails every call: everything must come from the cache, and the cut
    # reply must come back cut (never served as a complete reply of three verdicts).
    down = ScriptedChat(responder=lambda m, o: (_ for _ in ()).throw(CallFailedError("down")))
    again = await faithfulness(CachedChat(down, ResponseCache(path)))
    assert down.calls == []
    assert again.status is Status.SCORED
    assert again.details["claims"] == first.details["claims"]
    assert any("one at a time" in n for n in again.details["notes"])


async def test_a_failed_claim_alone_leaves_the_cache_so_a_retry_asks_again(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    runaway = '{"verdicts": [{"claim": 1, "evidence": "' + RUNAWAY[:600]
    failing = ScriptedChat([*script(), runaway, runaway], responder=judge_alone)
    first = await faithfulness(CachedChat(failing, ResponseCache(path)))
    assert first.status is Status.JUDGE_ERROR

    chat = ScriptedChat(script(), responder=judge_alone)
    again = await faithfulness(CachedChat(chat, ResponseCache(path)))
    assert again.status is Status.SCORED
    assert CLAIM_VERIFICATION.id in [c.output.name for c in chat.calls]


def test_only_items_closed_before_the_cut_are_read() -> None:
    assert closed_items(CUT_AFTER_ONE) == [verdict(1, "an English mathematician", "supported")]
    assert closed_items('[{"claim": 1}, {"claim": 2}, {"claim": 3, "verd') == [
        {"claim": 1},
        {"claim": 2},
    ]
    assert closed_items('{"verdicts": [{"claim": 1, "evidence": "a } b') == []
    assert closed_items('{"verdicts": [{"claim": 1, "reason": NaN}]') == []
    assert closed_items("The claims are all supported") == []


def copying_judge(request: ChatRequest) -> str:
    """A judge that copies both contexts whole into each evidence, unless told to quote at
    most some words: then it quotes that many words of the first context."""
    task = request.first_user
    if "<claims>" not in task:
        return json.dumps({"claims": list(CLAIMS)})
    claims = re.findall(r'<claim index="\d+">\n(.*?)\n</claim>', task, re.DOTALL)
    bounded = re.search(r"quote at most (\d+) words", request.system)
    quote = " ".join(CONTEXTS[0].split()[: int(bounded.group(1))]) if bounded else RUNAWAY
    verdicts = [verdict(n, quote, "supported") for n, _ in enumerate(claims, 1)]
    return json.dumps({"verdicts": verdicts})


async def test_against_a_server_the_runaway_costs_one_cut_call_then_small_ones() -> None:
    with FakeLLMServer(copying_judge) as server:
        chat = OpenAIChat(
            "judge-model",
            base_url=server.base_url,
            api_key="test-key",
            retry=RetryPolicy(max_attempts=2, base_delay_s=0.01),
        )
        record = await faithfulness(chat)  # type: ignore[arg-type]
        await chat.aclose()
        requests = server.requests

    assert record.status is Status.SCORED, record.reason
    assert record.details["counts"]["supported"] == 3
    bounds = [body["max_tokens"] for body in requests if "max_tokens" in body][1:]
    batched = CLAIM_VERIFICATION.budget(3)
    assert bounds == [batched] + [CLAIM_VERIFICATION_ALONE.max_tokens] * 3


async def test_a_reply_running_on_past_its_verdicts_keeps_them_and_asks_nothing_more() -> None:
    # Seen with the 1.5B judge on a WiCE item: one claim, its verdict closed, then more
    # verdicts for the same claim, each copying another passage, until the bound.
    first = verdict(1, CONTEXTS[0], "supported")
    again = [verdict(1, CONTEXTS[1], "supported")] * 3
    text = json.dumps({"verdicts": [first, *again]})[:-30]
    chat = ScriptedChat([cut(text)])
    outcome = await LLMJudge(chat).verify_claims([CLAIMS[0]], CONTEXTS, iteration=0)
    assert outcome.value is not None, outcome.error
    assert [(v.verdict, v.evidence) for v in outcome.value] == [(Verdict.SUPPORTED, CONTEXTS[0])]
    assert len(chat.calls) == 1  # nothing left to ask
    assert any("duplicate" in note for note in outcome.notes)
    assert any("kept the 1 verdict" in note for note in outcome.notes)
