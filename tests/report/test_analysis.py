"""The low-score analysis: severity groups, the worst items, patterns by group."""

from __future__ import annotations

from typing import Any

import pytest
from rich.console import Console

from tests.report.factory import claim, claims_details, rec
from veracity.report import summarize
from veracity.report.analysis import AnalysisBuilder
from veracity.report.console_report import print_report
from veracity.report.excerpts import claim_outcome
from veracity.report.summary_file import summary_model
from veracity.types import ResultRecord, Status


def analyse(records: list[ResultRecord], **options: Any) -> dict[str, Any]:
    builder = AnalysisBuilder(**options)
    for record in records:
        builder.add(record)
    return builder.build()


def test_faithfulness_bands_and_failures() -> None:
    scores = [0.1, 0.24999, 0.25, 0.3, 0.6, 0.75, 1.0]
    severity = analyse([rec(s, sample_id=str(i)) for i, s in enumerate(scores)])["severity"]
    found = severity["faithfulness"]
    assert found["bands"] == {"[0, 0.25)": 2, "[0.25, 0.5)": 2, "[0.5, 0.75)": 1, "[0.75, 1]": 2}
    assert (found["scored"], found["failing"], found["threshold"]) == (7, 4, 0.5)


def test_claims_are_counted_over_failing_results_only() -> None:
    records = [
        rec(0.0, sample_id="1", details=claims_details("contradicted", "contradicted")),
        rec(1 / 3, sample_id="2",
            details=claims_details("supported", "not_enough_info", "contradicted")),
        # passing: its unsupported claim is not a failure's
        rec(0.5, sample_id="3", details=claims_details("supported", "not_enough_info")),
        rec(None, sample_id="4", status=Status.JUDGE_ERROR),
        rec(None, sample_id="5", status=Status.UNSUPPORTED_BY_JUDGE),
    ]  # fmt: skip
    found = analyse(records)["severity"]["faithfulness"]
    assert found["claims_in_failing"] == {
        "results": 2,
        "results_with_contradicted": 2,
        "contradicted": 3,
        "not_enough_info": 1,
    }
    assert found["judge_errors"] == 1 and found["unsupported_by_judge"] == 1


def test_a_citation_metric_counts_its_misattributed_claims() -> None:
    def cited(attribution: str) -> dict[str, Any]:
        verdict = "not_enough_info" if attribution == "unsupported" else "supported"
        # An unsupported claim's evidence may still have been found in a passage.
        support = {"cited": [1], "misattributed": [2], "unsupported": [1]}[attribution]
        return {**claim(f"claim {attribution}", verdict), "attribution": attribution,
                "cites": [1], "supported_by": support}  # fmt: skip

    records = [
        rec(1 / 3, metric="citation_precision", sample_id="1",
            details={"claims": [cited("cited"), cited("misattributed"), cited("unsupported")]}),
        # passing: its misattributed claim is not a failure's
        rec(0.5, metric="citation_precision", sample_id="2",
            details={"claims": [cited("cited"), cited("misattributed")]}),
        rec(0.0, sample_id="1", details=claims_details("not_enough_info")),
    ]  # fmt: skip
    severity = analyse(records)["severity"]
    assert severity["citation_precision"]["claims_in_failing"] == {
        "results": 1,
        "results_with_contradicted": 0,
        "contradicted": 0,
        "not_enough_info": 1,
        "misattributed": 1,
    }
    assert "misattributed" not in severity["faithfulness"]["claims_in_failing"]
    worst = analyse(records)["worst"]["citation_precision"][0]
    assert [(c["verdict"], c.get("citations")) for c in worst["failing_claims"]] == [
        ("misattributed", "cites [1], supported by [2]"),
        ("not_enough_info", "cites [1]; no passage supports it"),
    ]
    # The console names what the failing results' claims are, and only what there is.
    console = Console(width=200, record=True, color_system=None)
    written = summary_model(summarize(records))  # the summary as a report reads it back
    assert written is not None
    print_report(written.model_dump(mode="json"), console)
    text = console.export_text()
    assert "1 unsupported, 1 misattributed claims" in " ".join(text.split())


@pytest.mark.parametrize(
    ("item", "outcome"),
    [
        ({"verdict": "contradicted"}, "contradicted"),
        ({"verdict": "supported", "attribution": "cited"}, "supported"),
        ({"verdict": "supported", "attribution": "misattributed"}, "misattributed"),
        # The judge said supported, but its support was found in no passage.
        ({"verdict": "supported", "attribution": "unsupported"}, "unsupported"),
        ({"verdict": "not_enough_info", "attribution": "unsupported"}, "not_enough_info"),
        ({"attributed": True}, "supported"),
        ({"attributed": False}, "not_enough_info"),
    ],
)
def test_a_claims_outcome_is_its_verdict_or_its_failed_attribution(
    item: dict[str, Any], outcome: str
) -> None:
    assert claim_outcome(item) == outcome


def test_a_statement_judged_without_a_call_fails_as_not_enough_info() -> None:
    # No contexts: context_recall's statements say only that they are not attributed.
    details = {"statements": [{"statement": "It is red.", "attributed": False, "reason": "r"}]}
    worst = analyse([rec(0.0, metric="context_recall", details=details)])["worst"]
    (entry,) = worst["context_recall"][0]["failing_claims"]
    assert (entry["kind"], entry["verdict"], entry["claim"]) == (
        "statement", "not_enough_info", "It is red."
    )  # fmt: skip


def test_rubric_results_are_grouped_by_overall() -> None:
    records = [
        rec((overall - 1) / 4, metric="rubric", sample_id=str(i),
            details={"dimensions": [], "overall": overall, "passed": overall >= 4})
        for i, overall in enumerate([1.0, 1.5, 2.5, 3.0, 4.75, 5.0])
    ]  # fmt: skip
    found = analyse(records)["severity"]["rubric"]
    assert found["rubric_overall"] == {"1": 2, "2": 1, "3": 1, "4": 1, "5": 1}
    assert "claims_in_failing" not in found


def test_the_worst_items_are_kept_lowest_first_with_failing_claims() -> None:
    records = [rec(score, sample_id=f"s{i}") for i, score in enumerate([0.9, 0.4, 0.8, 0.1, 0.6])]
    records.append(
        rec(0.0, sample_id="bad", system="x", question_type="multi", reason="none supported",
            details={"claims": [
                claim("Paris is in Spain", "contradicted", "the context says France",
                      "Paris is the capital of France"),
                claim("It has 3 towers", "not_enough_info", "not mentioned"),
                claim("Paris is a city", "supported"),
            ]})
    )  # fmt: skip
    records.append(rec(0.1, sample_id="tie"))  # ties with s3: the earlier s3 comes first
    worst = analyse(records, worst_n=3)["worst"]["faithfulness"]
    assert [w["sample_id"] for w in worst] == ["bad", "s3", "tie"]
    first = worst[0]
    assert first["failing"] is True and first["reason"] == "none supported"
    assert (first["system"], first["question_type"], first["score"]) == ("x", "multi", 0.0)
    assert [c["verdict"] for c in first["failing_claims"]] == ["contradicted", "not_enough_info"]
    assert first["failing_claims"][0]["evidence"] == "Paris is the capital of France"
    assert first["failing_claims"][0]["reason"] == "the context says France"


def test_the_worst_are_the_lowest_scores_the_earlier_first_on_ties() -> None:
    records = [
        rec(0.5, sample_id="first"),
        rec(0.5, sample_id="second"),
        rec(0.7, sample_id="higher"),
        rec(0.4, sample_id="lower"),
    ]
    worst = analyse(records, worst_n=3)["worst"]["faithfulness"]
    assert [w["sample_id"] for w in worst] == ["lower", "first", "second"]


def test_worst_items_cap_their_claims_and_list_failing_rubric_dimensions() -> None:
    many = claims_details(*["contradicted"] * 25)
    rubric = {
        "overall": 2.0,
        "dimensions": [
            {"name": "faithfulness", "score": 1, "minimum": 4, "reasoning": "made up"},
            {"name": "completeness", "score": 3, "minimum": 3, "reasoning": "fine"},
        ],
    }
    found = analyse([rec(0.0, details=many), rec(0.25, metric="rubric", details=rubric)])
    entry = found["worst"]["faithfulness"][0]
    assert len(entry["failing_claims"]) == 20 and entry["more_failing_claims"] == 5
    dims = found["worst"]["rubric"][0]["failing_dimensions"]
    assert dims == [{"name": "faithfulness", "score": 1, "minimum": 4, "reasoning": "made up"}]


def test_patterns_flag_a_group_that_fails_much_more_than_average() -> None:
    records = [
        rec(0.1 if i < 4 else 0.9, sample_id=f"x{i}", system="x", question_type="multi")
        for i in range(5)
    ] + [rec(0.9, sample_id=f"y{i}", system="y", question_type="simple") for i in range(5)]
    patterns = analyse(records)["patterns"]["faithfulness"]
    assert patterns["failure_rate"] == pytest.approx(0.4)
    x, y = patterns["by_system"]["x"], patterns["by_system"]["y"]
    assert (x["failures"], x["failure_rate"], x["ratio_to_average"]) == (4, 0.8, 2.0)
    assert x["flagged"] is True and y["flagged"] is False
    assert y["failure_rate"] == 0.0 and y["mean"] == pytest.approx(0.9)
    assert patterns["by_question_type"]["multi"]["flagged"] is True


def test_patterns_do_not_flag_without_evidence() -> None:
    # 3 of 4 fail in x: too few results (5 needed) to flag, however high the rate
    few = [rec(0.1 if i < 3 else 0.9, sample_id=f"x{i}", system="x") for i in range(4)]
    few += [rec(0.9, sample_id=f"y{i}", system="y") for i in range(6)]
    assert analyse(few)["patterns"]["faithfulness"]["by_system"]["x"]["flagged"] is False
    # a single group is never flagged: there is nothing to compare it with
    alone = [rec(0.1, sample_id=str(i), system="x") for i in range(10)]
    assert analyse(alone)["patterns"]["faithfulness"]["by_system"]["x"]["flagged"] is False
    # a group failing a little more than average (0.6 versus 0.5) is not flagged
    near = [rec(0.1 if i < 6 else 0.9, sample_id=f"x{i}", system="x") for i in range(10)]
    near += [rec(0.1 if i < 4 else 0.9, sample_id=f"y{i}", system="y") for i in range(10)]
    assert analyse(near)["patterns"]["faithfulness"]["by_system"]["x"]["flagged"] is False


def test_the_summary_carries_the_analysis_with_the_thresholds_given() -> None:
    records = [rec(0.6, sample_id="a"), rec(0.8, sample_id="b")]
    default = summarize(records)["analysis"]
    assert default["severity"]["faithfulness"]["failing"] == 0
    strict = summarize(records, thresholds={"faithfulness": 0.7})["analysis"]
    assert strict["severity"]["faithfulness"]["failing"] == 1
    assert strict["worst"]["faithfulness"][0]["failing"] is True
    assert strict["worst"]["faithfulness"][1]["failing"] is False
    assert strict["worst_n"] == 10
