"""summary.json groupings: per system, question type and iteration; judge variance."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from tests.report.factory import rec
from veracity.report import NO_SYSTEM, NO_TYPE, SummaryBuilder, summarize
from veracity.types import Status

# Three items judged twice: (sample, system, question type) → scores of iterations 0, 1.
TWO_ITERATIONS = {
    ("s1", "a", "fact"): (0.8, 0.4),  # passes then fails at 0.5: a flip
    ("s2", "a", "fact"): (1.0, 1.0),
    ("s3", "b", None): (0.2, 0.3),  # fails twice: no flip
}


def two_iterations(thresholds: dict[str, float] | None = None) -> dict[str, Any]:
    builder = SummaryBuilder(["faithfulness"], thresholds)
    for iteration in (0, 1):
        for (sample, system, qtype), scores in TWO_ITERATIONS.items():
            builder.add(
                rec(
                    scores[iteration],
                    sample_id=sample,
                    system=system,
                    question_type=qtype,
                    iteration=iteration,
                )
            )
    return builder.build(bad_rows=0)


def test_groups_by_system_question_type_and_iteration() -> None:
    metric = two_iterations()["metrics"]["faithfulness"]
    assert metric["threshold"] == {"value": 0.5, "source": "default"}
    overall = metric["overall"]
    assert overall["n"] == 6 and overall["mean"] == pytest.approx(3.7 / 6)
    assert overall["pass_rate"] == pytest.approx(3 / 6)  # 0.8, 1.0, 1.0
    system_a, system_b = metric["by_system"]["a"], metric["by_system"]["b"]
    assert system_a["mean"] == pytest.approx(0.8) and system_a["pass_rate"] == 0.75
    assert system_b["mean"] == pytest.approx(0.25) and system_b["pass_rate"] == 0.0
    assert metric["by_question_type"]["fact"]["mean"] == pytest.approx(0.8)
    assert metric["by_question_type"][NO_TYPE]["n"] == 2
    assert set(metric["by_iteration"]) == {"0", "1"}
    first, second = metric["by_iteration"]["0"], metric["by_iteration"]["1"]
    assert first["mean"] == pytest.approx(2.0 / 3) and first["pass_rate"] == pytest.approx(2 / 3)
    assert second["mean"] == pytest.approx(1.7 / 3) and second["pass_rate"] == pytest.approx(1 / 3)


def test_confidence_intervals_resample_items_not_iterations() -> None:
    metric = two_iterations()["metrics"]["faithfulness"]
    low, high = metric["overall"]["ci95"]
    # the item means are 0.6, 1.0 and 0.25: a resample of items lies between them
    assert 0.25 <= low < metric["overall"]["mean"] < high <= 1.0
    # system b is one item: no interval, whatever the number of its scores
    assert metric["by_system"]["b"]["ci95"] is None
    # within one iteration every item is once: system a has two there
    assert metric["by_iteration"]["0"]["ci95"] is not None


def test_judge_variance_by_hand() -> None:
    variance = two_iterations()["metrics"]["faithfulness"]["judge_variance"]
    assert variance["iterations"] == 2 and variance["items_compared"] == 3
    # sample std of two scores is |x − y| / √2: 0.4/√2, 0, 0.1/√2
    stds = [0.4 / math.sqrt(2), 0.0, 0.1 / math.sqrt(2)]
    assert variance["std"]["mean"] == pytest.approx(sum(stds) / 3)
    assert variance["std"]["max"] == pytest.approx(0.4 / math.sqrt(2))
    assert variance["range"]["mean"] == pytest.approx(0.5 / 3)
    assert variance["range"]["max"] == pytest.approx(0.4)
    assert variance["flipped_items"] == 1 and variance["flip_rate"] == pytest.approx(1 / 3)


def test_a_given_threshold_moves_pass_and_flip_rates() -> None:
    metric = two_iterations({"faithfulness": 0.9})["metrics"]["faithfulness"]
    assert metric["threshold"] == {"value": 0.9, "source": "given"}
    assert metric["overall"]["pass_rate"] == pytest.approx(2 / 6)
    # at 0.9 item s1 fails both times (0.8, 0.4): nothing flips
    assert metric["judge_variance"]["flip_rate"] == 0.0


def test_single_iteration_has_no_judge_variance_and_unscored_items_are_not_compared() -> None:
    one = summarize([rec(0.5, sample_id="x"), rec(0.7, sample_id="y")])
    assert one["metrics"]["faithfulness"]["judge_variance"] is None
    partial = summarize(
        [
            rec(0.5, sample_id="x", iteration=0),
            rec(None, sample_id="x", iteration=1),
            rec(0.9, sample_id="y", iteration=0),
            rec(0.1, sample_id="y", iteration=1),
        ]
    )
    variance = partial["metrics"]["faithfulness"]["judge_variance"]
    assert variance["items_scored"] == 2 and variance["items_compared"] == 1
    assert variance["flipped_items"] == 1


def test_labels_statuses_and_no_system_stay() -> None:
    summary = summarize(
        [
            rec(1.0, metric="answer_classification", details={"classification": "correct"}),
            rec(
                0.0, metric="answer_classification", details={"classification": "wrong"}, system="x"
            ),
            rec(None, metric="answer_classification", status=Status.MISSING_REFERENCE),
        ]
    )
    metric = summary["metrics"]["answer_classification"]
    counts = metric["overall"]["classification"]["counts"]
    assert counts == {"correct": 1, "wrong": 1, "dont_know": 0}
    assert metric["overall"]["counts_by_status"]["missing_reference"] == 1
    assert set(metric["by_system"]) == {NO_SYSTEM, "x"}
    assert metric["by_system"]["x"]["classification"]["rates"]["wrong"] == 1.0


def test_the_summary_is_json_without_nan_and_bad_thresholds_are_refused() -> None:
    summary = two_iterations()
    json.dumps(summary, allow_nan=False)
    assert summary["analysis"]["severity"]["faithfulness"]["failing"] == 3
    with pytest.raises(ValueError, match="threshold"):
        SummaryBuilder([], {"faithfulness": 1.5})
    with pytest.raises(ValueError, match="threshold"):
        SummaryBuilder([], {"faithfulness": float("nan")})


def test_metrics_keep_the_run_order() -> None:
    summary = summarize(
        [rec(0.5, metric="b"), rec(0.5, metric="a"), rec(0.5, metric="c")], ["c", "a"]
    )
    assert list(summary["metrics"]) == ["c", "a", "b"]
    assert list(summary["analysis"]["severity"]) == ["c", "a", "b"]
