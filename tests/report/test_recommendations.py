"""Every recommendation rule: it fires on evidence, and stays silent without it."""

from __future__ import annotations

from typing import Any

from tests.report.factory import claims_details, rec
from veracity.report import summarize
from veracity.types import ResultRecord, Status


def rules(records: list[ResultRecord], **thresholds: float) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = summarize(records, thresholds=thresholds)["analysis"][
        "recommendations"
    ]
    return found


def fired(records: list[ResultRecord], rule: str, **thresholds: float) -> list[dict[str, Any]]:
    return [r for r in rules(records, **thresholds) if r["rule"] == rule]


def scores(metric: str, values: list[float], system: str | None = None) -> list[ResultRecord]:
    return [
        rec(v, metric=metric, sample_id=f"{system}-{i}", system=system)
        for i, v in enumerate(values)
    ]


def test_retrieval_misses_fires_when_recall_is_low_and_faithfulness_high() -> None:
    records = scores("context_recall", [0.2] * 5) + scores("faithfulness", [0.9] * 5)
    (found,) = fired(records, "retrieval_misses")
    assert found["scope"] == "overall" and found["metric"] == "context_recall"
    assert "context_recall is low (0.20) while faithfulness is high (0.90)" in found["message"]
    assert "retriever (chunking, top-k)" in found["message"]


def test_retrieval_misses_stays_silent_without_evidence() -> None:
    # four results are too few
    assert not fired(scores("context_recall", [0.2] * 4) + scores("faithfulness", [0.9] * 4),
                     "retrieval_misses")  # fmt: skip
    # faithfulness is not high: the answers do not keep to the contexts either
    assert not fired(scores("context_recall", [0.2] * 5) + scores("faithfulness", [0.6] * 5),
                     "retrieval_misses")  # fmt: skip
    # recall at its threshold is not low
    assert not fired(scores("context_recall", [0.5] * 5) + scores("faithfulness", [0.9] * 5),
                     "retrieval_misses")  # fmt: skip
    # …unless the threshold given is higher
    assert fired(scores("context_recall", [0.5] * 5) + scores("faithfulness", [0.9] * 5),
                 "retrieval_misses", context_recall=0.7)  # fmt: skip


def test_rules_look_at_each_system_when_there_are_several() -> None:
    records = (
        scores("context_recall", [0.2] * 5, "old")
        + scores("faithfulness", [0.9] * 5, "old")
        + scores("context_recall", [0.9] * 5, "new")
        + scores("faithfulness", [0.9] * 5, "new")
    )
    (found,) = fired(records, "retrieval_misses")
    assert found["scope"] == "old" and found["message"].startswith("system 'old': ")


def test_low_context_precision() -> None:
    (found,) = fired(scores("context_precision", [0.2] * 5), "low_context_precision")
    assert "rerank" in found["message"] and found["evidence"]["context_precision"] == 0.2
    assert not fired(scores("context_precision", [0.8] * 5), "low_context_precision")
    assert not fired(scores("context_precision", [0.2] * 4), "low_context_precision")


def contradicting(n_contradicted: int, total: int, system: str = "x") -> list[ResultRecord]:
    return [
        rec(0.5, sample_id=f"{system}{i}", system=system,
            details=claims_details("supported", "contradicted" if i < n_contradicted
                                   else "supported"))
        for i in range(total)
    ]  # fmt: skip


def test_contradicted_claims_in_a_system() -> None:
    records = contradicting(3, 5, "x") + contradicting(0, 5, "y")
    (found,) = fired(records, "contradicted_claims")
    assert found["scope"] == "x" and found["metric"] == "faithfulness"
    assert "many contradicted claims in system 'x'" in found["message"]
    assert "the generator contradicts its contexts" in found["message"]
    assert found["evidence"] == {"contradicted": 3, "answers": 3, "of": 5}


def test_contradicted_claims_need_enough_of_them() -> None:
    assert not fired(contradicting(2, 5), "contradicted_claims")  # two are too few
    assert not fired(contradicting(3, 20), "contradicted_claims")  # 15 % is not "many"


def unsupported(n_failing: int, per_answer: int, contradicted: int = 0) -> list[ResultRecord]:
    verdicts = ["not_enough_info"] * per_answer + ["contradicted"] * contradicted
    return [
        rec(0.0, sample_id=f"u{i}", details=claims_details(*verdicts)) for i in range(n_failing)
    ]


def test_unsupported_claims_dominating_failures() -> None:
    (found,) = fired(unsupported(3, 2), "unsupported_claims")
    assert found["evidence"] == {"not_enough_info": 6, "contradicted": 0, "failing_answers": 3}
    assert "answer only from the contexts" in found["message"]


def test_unsupported_claims_silent_without_evidence() -> None:
    assert not fired(unsupported(2, 3), "unsupported_claims")  # two failing answers
    assert not fired(unsupported(4, 1), "unsupported_claims")  # four claims
    assert not fired(unsupported(3, 2, contradicted=2), "unsupported_claims")  # not mostly


def test_a_question_type_failing_more_often() -> None:
    records = [
        rec(0.1 if i < 3 else 0.9, sample_id=f"m{i}", question_type="multi_hop") for i in range(5)
    ] + [rec(0.9, sample_id=f"s{i}", question_type="simple") for i in range(10)]
    (found,) = fired(records, "group_fails_more")
    assert found["scope"] == "question type multi_hop"
    # 3 of 5 fail against 3 of 15 overall: 0.6 / 0.2 = 3×
    assert "question type 'multi_hop' fails 3.0× as often as average" in found["message"]
    assert "(60% versus 20%; 3 of 5 fail)" in found["message"]
    balanced = [
        rec(0.1 if i % 3 == 0 else 0.9, sample_id=f"{t}{i}", question_type=t)
        for t in ("a", "b")
        for i in range(9)
    ]
    assert not fired(balanced, "group_fails_more")


def test_judge_errors() -> None:
    errors = [rec(None, sample_id=f"e{i}", status=Status.JUDGE_ERROR) for i in range(3)]
    ok = [rec(0.9, sample_id=f"k{i}") for i in range(7)]
    (found,) = fired(errors + ok, "judge_errors")
    assert found["message"].startswith("3 judge errors on faithfulness (30% of its results)")
    # No raw reply kept: the calls failed, so the advice is about the calls.
    assert "3 got no reply at all" in found["message"] and "--timeout" in found["message"]
    assert found["evidence"]["without_reply"] == 3
    unreadable = [
        rec(None, sample_id=f"u{i}", status=Status.JUDGE_ERROR,
            details={"raw_replies": ["Sure! Here you go: claims maybe"]})
        for i in range(3)
    ]  # fmt: skip
    (found,) = fired(unreadable + ok, "judge_errors")
    assert "read the raw replies" in found["message"] and "--timeout" not in found["message"]
    assert found["evidence"]["without_reply"] == 0
    assert not fired(errors[:2] + ok, "judge_errors")
    # three errors in a hundred results are not worth a recommendation
    many = [rec(0.9, sample_id=f"m{i}") for i in range(97)]
    assert not fired(errors + many, "judge_errors")


def iterations(first: list[float], second: list[float]) -> list[ResultRecord]:
    return [
        rec(score, sample_id=f"i{i}", iteration=iteration)
        for iteration, values in enumerate((first, second))
        for i, score in enumerate(values)
    ]


def test_an_unstable_judge() -> None:
    flips = iterations([0.9] * 5, [0.9, 0.9, 0.9, 0.9, 0.1])  # 1 of 5 items flips: 20 %
    (found,) = fired(flips, "unstable_judge")
    assert "flips pass/fail on 20% of items" in found["message"]
    assert not fired(iterations([0.9] * 5, [0.8] * 5), "unstable_judge")  # stable
    assert not fired(iterations([0.9] * 4, [0.1] * 4), "unstable_judge")  # four items only


def test_a_healthy_run_gets_no_recommendation() -> None:
    records = (
        scores("faithfulness", [0.9] * 10)
        + scores("context_recall", [0.9] * 10)
        + scores("context_precision", [0.9] * 10)
    )
    assert rules(records) == []
