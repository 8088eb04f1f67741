"""The assert helpers on hand-made results: what passes, what fails, and what the message
says."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from veracity import EvaluationResult
from veracity.dataset import RowError
from veracity.pytest_plugin import RagAssertionError, assert_faithful, assert_scores, describe
from veracity.types import MetricResult, ResultRecord, Status


def record(sample: str, metric: str, score: float | None, **fields: Any) -> ResultRecord:
    status = fields.pop("status", Status.SCORED if score is not None else Status.JUDGE_ERROR)
    return ResultRecord(
        metric=metric,
        score=score,
        status=status,
        reason=fields.pop("reason", "because"),
        details=fields.pop("details", {}),
        sample_id=sample,
        system=fields.pop("system", None),
        iteration=0,
    )


CLAIMS = {
    "claims": [
        {"claim": "Paris is in France.", "verdict": "supported", "reason": "ok", "evidence": "x"},
        {"claim": "It has 40 million people.", "verdict": "contradicted",
         "reason": "The context says 2.1 million.", "evidence": "Paris has 2.1 million people."},
        {"claim": "It is sunny.", "verdict": "not_enough_info", "reason": "Not said.",
         "evidence": ""},
    ]
}  # fmt: skip


def test_failing_claims_are_listed_with_verdict_reason_and_evidence() -> None:
    results = [record("s1", "faithfulness", 1 / 3, details=CLAIMS, system="rag-v2")]
    with pytest.raises(RagAssertionError) as info:
        assert_faithful(results, 0.8)
    message = str(info.value)
    assert "faithfulness: 1 of 1 result(s) below 0.8" in message
    assert "sample 's1' (system 'rag-v2'): faithfulness 0.333 < 0.8 — because" in message
    assert "✗ contradicted claim: 'It has 40 million people.'" in message
    assert "reason: The context says 2.1 million." in message
    assert "evidence: 'Paris has 2.1 million people.'" in message
    assert "✗ not_enough_info claim: 'It is sunny.'" in message
    assert "Paris is in France" not in message


def test_passes_at_or_above_the_minimum() -> None:
    results = [record("s1", "faithfulness", 0.8), record("s2", "context_recall", 0.2)]
    assert_faithful(results, 0.8)
    assert_scores(results, {"faithfulness": 0.8, "context_recall": 0.2})
    assert_scores(results, min_mean={"faithfulness": 0.8})
    assert_scores(results)  # everything scored


def test_a_judge_error_never_passes() -> None:
    results = [record("s1", "faithfulness", None, reason="the reply was not JSON")]
    for min_score, min_mean in ((None, None), (0.0, None), (None, 0.0)):
        with pytest.raises(RagAssertionError, match=r"has no score \(judge_error\) — the reply"):
            assert_scores(results, min_score, min_mean=min_mean)


def test_allowed_statuses_and_missing_metrics() -> None:
    results = [
        record("s1", "faithfulness", None, status=Status.NO_CLAIMS, reason="a refusal"),
        record("s2", "faithfulness", 1.0),
    ]
    assert_scores(results, 0.9, allow=["no_claims"])
    with pytest.raises(RagAssertionError, match=r"1 of 2 result\(s\) without a score"):
        assert_scores(results, 0.9)
    with pytest.raises(RagAssertionError, match="no context_recall result to check"):
        assert_scores(results, metrics=["context_recall"])
    with pytest.raises(RagAssertionError, match="there is no result to check"):
        assert_scores([])
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        assert_scores(results, 1.5)


def test_an_allowed_status_that_is_no_status_is_named_with_the_one_meant() -> None:
    results = [record("s1", "faithfulness", None, status=Status.NO_CLAIMS, reason="a refusal")]
    with pytest.raises(ValueError) as raised:
        assert_scores(results, allow=["no_claim"])
    assert str(raised.value).startswith(
        "allow: unknown status 'no_claim'; did you mean 'no_claims'? statuses: scored, "
    )
    # One status as a plain string is that status, not the statuses it is a substring of.
    assert_scores(results, allow="no_claims")
    with pytest.raises(ValueError, match="unknown status 'pending'; statuses: "):
        assert_scores(results, allow="pending")  # nothing like it: no suggestion


def test_mean_failures_list_the_results_under_it() -> None:
    results = [record(f"s{i}", "context_recall", s) for i, s in enumerate((1.0, 0.9, 0.2, 0.1))]
    with pytest.raises(RagAssertionError) as info:
        assert_scores(results, min_mean=0.7)
    lines = str(info.value).splitlines()
    assert lines[0] == "context_recall: mean 0.550 < 0.7 over 4 scored of 4 result(s)"
    assert lines[1].startswith("sample 's3': context_recall 0.100 < 0.7")
    assert lines[2].startswith("sample 's2': context_recall 0.200 < 0.7")
    assert len(lines) == 3


def test_bad_rows_of_an_evaluation_fail() -> None:
    result = EvaluationResult(
        summary={},
        results=(record("s1", "faithfulness", 1.0),),
        bad_rows=(RowError(path="<samples>", line=None, item=2, message="no answer"),),
    )
    with pytest.raises(RagAssertionError, match="invalid sample"):
        assert_scores(result)


def test_describe_other_details() -> None:
    details = {
        "chunks": [{"index": 0, "relevant": True}, {"index": 1, "relevant": False,
                                                     "reason": "about cats"}],
        "dimensions": [{"name": "tone", "score": 2, "minimum": 3, "reasoning": "curt"},
                       {"name": "clarity", "score": 5, "minimum": 3}],
        "criteria": {"correctness": {"score": 40, "reasoning": "half wrong"}},
        "classification": "wrong",
    }  # fmt: skip
    text = describe(MetricResult(metric="m", score=0.1, status=Status.SCORED, reason="r",
                                 details=details))  # fmt: skip
    assert "✗ chunk #1 not relevant: about cats" in text
    assert "✗ tone: 2/5 (minimum 3): curt" in text and "clarity" not in text
    assert "· correctness 40/100: half wrong" in text
    assert "· classified as wrong" in text
    many = {"claims": [{"claim": f"c{i}", "verdict": "contradicted"} for i in range(30)]}
    text = describe(MetricResult(metric="m", score=0.0, status=Status.SCORED, reason="r",
                                 details=many))  # fmt: skip
    assert "… 18 more line(s)" in text


def _reply(messages: Any, output: Any) -> str:
    from tests.helpers import claims_reply, verdicts_reply

    if any("BROKEN" in str(message.content) for message in messages):
        return "not JSON"  # re-asked too: the conversation holds the answer
    if getattr(output, "name", "") == "claim_extraction":
        return claims_reply("It is in Paris.")
    return verdicts_reply(("It is in Paris.", "supported", "stated", "It is in Paris."))


def test_every_helper_takes_allow() -> None:
    """Issue 48 item 10: the README says every helper takes ``allow``."""
    from veracity import LLMJudge, ScriptedChat
    from veracity.pytest_plugin import RagEval

    results = [record("s1", "faithfulness", None, reason="the reply was not JSON")]
    with pytest.raises(RagAssertionError, match="without a score"):
        assert_faithful(results, 0.5)
    assert_faithful(results, 0.5, allow=["judge_error"])

    rag_eval = RagEval(LLMJudge(ScriptedChat(responder=_reply)))
    context = ["It is in Paris."]
    samples = [
        {"id": "good", "question": "Where?", "answer": "It is in Paris.", "contexts": context},
        {"id": "bad", "question": "Where?", "answer": "BROKEN in Paris.", "contexts": context},
    ]
    checks: list[Callable[[Sequence[str]], EvaluationResult]] = [
        lambda allow: rag_eval.assert_faithful(samples, allow=allow),
        lambda allow: rag_eval.assert_metric(samples, "faithfulness", allow=allow),
        lambda allow: rag_eval.assert_metrics(samples, {"faithfulness": 0.5}, allow=allow),
        lambda allow: rag_eval.assert_metrics(
            samples, {"faithfulness": 0.5}, per_sample=True, allow=allow
        ),
    ]
    for check in checks:
        with pytest.raises(RagAssertionError, match="judge_error"):
            check(())
        statuses = sorted(r.status.value for r in check(["judge_error"]).results)
        assert statuses == ["judge_error", "scored"]
