"""The prompt budget (issue 14 item 13): a prompt over it is not sent, the result is
``invalid_input`` with the size, and contexts are cut to fit only when asked for."""

from __future__ import annotations

import re
import tracemalloc

import pytest

from tests.helpers import claims_reply, verdicts_reply
from veracity import LLMJudge, ScriptedChat, Status, evaluate
from veracity.config import RunConfig
from veracity.prompts import CLAIM_VERIFICATION, PromptBudget, PromptTooLarge
from veracity.prompts.budget import CUT_MARK, DEFAULT_PROMPT_BUDGET
from veracity.testing import FakeLLMServer


def test_what_fits_is_sent_whole() -> None:
    fitted = PromptBudget(1000).fit(["a claim"], ["one context", "another"], fixed_chars=100)
    assert fitted.contexts == ("one context", "another")
    assert fitted.note is None


def test_over_the_budget_names_the_size_and_the_budget() -> None:
    with pytest.raises(PromptTooLarge) as raised:
        PromptBudget(1000).fit(["q", "x" * 40_000])
    message = str(raised.value)
    assert "about 10,021 tokens (40,081 characters)" in message
    assert "budget of 1,000 tokens" in message and "not sent" in message


def test_cutting_shortens_the_longest_contexts_to_one_length_and_keeps_the_short_ones() -> None:
    budget = PromptBudget(2000, truncate_contexts=True)
    contexts = ["short context", "L" * 20_000, "M" * 5_000, "tiny"]
    fitted = budget.fit(["a claim"], contexts, fixed_chars=500)
    short, long_, medium, tiny = fitted.contexts
    assert (short, tiny) == ("short context", "tiny")
    assert len(long_) == len(medium) and long_.endswith(CUT_MARK) and medium.endswith(CUT_MARK)
    assert long_.startswith("LLL") and medium.startswith("MMM")
    sent = 500 + len("a claim") + sum(map(len, fitted.contexts)) + 40 * 5
    assert sent // 4 + 1 <= 2000
    assert fitted.note is not None
    assert "context(s) 2 (20,000), 3 (5,000) cut to" in fitted.note
    assert "prompt budget of 2,000 tokens" in fitted.note


def test_cutting_never_touches_the_answer_or_claims() -> None:
    budget = PromptBudget(1000, truncate_contexts=True)
    with pytest.raises(PromptTooLarge, match="cutting the contexts would leave under 200"):
        budget.fit(["x" * 4_000], ["a context " * 100])
    with pytest.raises(PromptTooLarge, match="raise the prompt budget"):
        budget.fit(["x" * 8_000])


@pytest.mark.parametrize("tokens", [0, -5, True, 1.5])
def test_a_budget_must_be_a_positive_number_of_tokens(tokens: object) -> None:
    with pytest.raises(ValueError, match="prompt budget"):
        PromptBudget(tokens)  # type: ignore[arg-type]


def _judge() -> tuple[LLMJudge, ScriptedChat]:
    def respond(messages: object, output: object) -> str:
        if getattr(output, "name", "") == "claim_extraction":
            return claims_reply("Paris is in France.")
        return verdicts_reply(("Paris is in France.", "supported", "stated", "Paris"))

    chat = ScriptedChat(responder=respond)
    return LLMJudge(chat), chat


def test_a_50_mb_answer_is_invalid_input_without_a_call_or_a_copy() -> None:
    """It went out as two 52-million-character prompts (1.1 GB of memory)."""
    answer = "Paris is in France. " * 2_621_440  # 50 MiB
    sample = {"id": "big", "question": "Where?", "answer": answer, "contexts": ["Paris"],
              "reference": "Paris is in France."}  # fmt: skip
    judge, chat = _judge()
    metrics = ["faithfulness", "answer_relevance", "factual_accuracy"]
    tracemalloc.start()
    try:
        result = evaluate([sample], metrics, judge, config=RunConfig(embedder="none", cache=False))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert chat.calls == []
    # Before: 1.1 GB. Now no prompt is rendered; what is left is a transient copy or two
    # (``answer.strip()`` in the metrics' emptiness checks).
    assert peak < 3 * len(answer)
    assert len(result.results) == 3
    for record in result.results:
        assert record.status is Status.INVALID_INPUT, record
        assert record.score is None
        assert re.search(r"about 13,10\d,\d{3} tokens \(52,4\d\d,\d{3} characters\)", record.reason)
        assert f"budget of {DEFAULT_PROMPT_BUDGET:,} tokens" in record.reason
    counts = result.summary["metrics"]["faithfulness"]["overall"]["counts_by_status"]
    assert counts["invalid_input"] == 1 and counts["judge_error"] == 0


SAMPLE = {
    "id": "s",
    "question": "Where is Paris?",
    "answer": "Paris is in France.",
    "contexts": ["Paris is in France.", "filler. " * 25_000],  # 200,000 characters
}


def test_a_200_000_character_context_is_not_sent_whole_by_default() -> None:
    judge, chat = _judge()
    result = evaluate(
        [SAMPLE], ["faithfulness", "context_precision"], judge, config=RunConfig(cache=False)
    )
    by_metric = {r.metric: r for r in result.results}
    # The answer's claims are extracted; nothing that carries the contexts is sent.
    assert [c.output.name for c in chat.calls] == ["claim_extraction"]
    for record in by_metric.values():
        assert record.status is Status.INVALID_INPUT
        assert re.search(r"about 50,\d{3} tokens \(20\d,\d{3} characters\)", record.reason)
        assert "cut to fit" in record.reason


def test_truncate_contexts_cuts_them_to_fit_and_says_so() -> None:
    judge, chat = _judge()
    budget = PromptBudget(8000, truncate_contexts=True)
    result = evaluate(
        [SAMPLE],
        ["faithfulness"],
        LLMJudge(chat, prompt_budget=budget),
        config=RunConfig(cache=False),
    )
    (record,) = result.results
    assert record.status is Status.SCORED and record.score == 1.0
    verification = [c for c in chat.calls if c.output.name == CLAIM_VERIFICATION.id]
    assert len(verification) == 1
    sent = sum(len(m.content) for m in verification[0].messages)
    assert sent <= 8000 * 4
    assert CUT_MARK in verification[0].prompt and "Paris is in France." in verification[0].prompt
    assert any("context(s) 2 (200,000) cut to" in note for note in record.details["notes"])
    assert judge.describe()["prompt_budget"] == {"tokens": 32000, "truncate_contexts": False}


def test_the_budget_is_set_through_evaluate_for_a_judge_spec_only() -> None:
    judge, _ = _judge()
    with (
        pytest.warns(DeprecationWarning, match="prompt_budget"),
        pytest.raises(ValueError, match="prompt_budget and truncate_contexts"),
    ):
        evaluate([SAMPLE], ["faithfulness"], judge, prompt_budget=1000)


def test_evaluate_gives_a_judge_spec_its_budget() -> None:
    with FakeLLMServer() as server:
        result = evaluate(
            [SAMPLE],
            ["faithfulness"],
            "openai/m",
            config=RunConfig(
                base_url=server.base_url, cache=False, prompt_budget=6000, truncate_contexts=True
            ),
        )
        largest = max(
            sum(len(m["content"]) for m in request["messages"]) for request in server.requests
        )
    (record,) = result.results
    assert record.status is Status.SCORED
    assert largest < 6000 * 4
    assert result.manifest["judge"]["prompt_budget"] == {"tokens": 6000, "truncate_contexts": True}
