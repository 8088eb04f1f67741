"""Noise that must not read as failure. A difference too small to print is no
regression, a reason both sides share is said once, and the offline judge rating
relevance directly (its design) is not called a failure."""

from __future__ import annotations

import io

from rich.console import Console

from tests.report.factory import rec
from veracity import evaluate
from veracity.report.compare import compare_records
from veracity.report.console_compare import print_comparison


def test_a_difference_in_the_fourth_decimal_is_no_regression() -> None:
    run_a = [rec(0.8000, sample_id="s1"), rec(0.8, sample_id="s2", reason="same")]
    run_b = [rec(0.79999, sample_id="s1"), rec(0.5, sample_id="s2", reason="same")]
    (entry,) = compare_records(run_a, run_b).metrics
    assert (entry.improved, entry.regressed_count, entry.unchanged) == (0, 1, 1)
    assert [r.sample_id for r in entry.regressed] == ["s2"]
    out = io.StringIO()
    print_comparison(compare_records(run_a, run_b), Console(file=out, width=200))
    printed = out.getvalue()
    assert "A and B: same" in printed
    assert "s1" not in printed


def test_the_offline_judge_rating_relevance_directly_is_no_failure() -> None:
    result = evaluate(
        [{"id": "s1", "question": "Where is the tower?", "contexts": ["It is in Paris."],
          "answer": "The tower is in Paris."}],
        "answer_relevance", "offline", progress=False,
    )  # fmt: skip
    [record] = result.results
    assert record.score is not None
    assert "failed" not in record.reason
    assert record.reason.endswith("(this judge writes no questions)")
