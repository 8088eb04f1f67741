"""The summary and threshold gates, against hand-computed values."""

from __future__ import annotations

import pytest

from veracity.report import NO_SYSTEM, SummaryBuilder, check_thresholds, parse_thresholds
from veracity.types import ResultRecord, Status, Usage


def record(score: float | None, status: Status, system: str | None = "a") -> ResultRecord:
    return ResultRecord(
        sample_id="s",
        system=system,
        metric="faithfulness",
        iteration=0,
        score=score,
        status=status,
        reason="r",
        usage=Usage(calls=2, input_tokens=10, output_tokens=3),
    )


def test_summary_statistics_by_metric_and_system() -> None:
    builder = SummaryBuilder()
    for rec in [
        record(1.0, Status.SCORED, "a"),
        record(0.5, Status.SCORED, "a"),
        record(None, Status.JUDGE_ERROR, "a"),
        record(0.0, Status.NO_CONTEXTS, "b"),
        record(1.0, Status.NO_CLAIMS, None),
    ]:
        builder.add(rec)
    summary = builder.build(bad_rows=2)
    overall = summary["metrics"]["faithfulness"]["overall"]
    assert overall["n"] == 5
    assert overall["n_scored"] == 4
    assert overall["mean"] == pytest.approx(2.5 / 4)
    assert overall["median"] == pytest.approx(0.75)
    assert (overall["min"], overall["max"]) == (0.0, 1.0)
    assert overall["std"] == pytest.approx(0.4787135538781691)
    assert overall["counts_by_status"]["judge_error"] == 1
    assert overall["counts_by_status"]["skipped"] == 0  # every status is listed
    by_system = summary["metrics"]["faithfulness"]["by_system"]
    assert by_system["a"]["mean"] == pytest.approx(0.75)
    assert by_system["a"]["n"] == 3 and by_system["a"]["n_scored"] == 2
    assert by_system[NO_SYSTEM]["n"] == 1
    assert summary["bad_rows"] == 2
    assert summary["usage"] == {
        "calls": 10,
        "input_tokens": 50,
        "output_tokens": 15,
        "cached_calls": 0,
    }
    # no record carries a price, and calls were made: the cost is unknown, not zero
    assert summary["cost"]["total_usd"] is None
    assert summary["cost"]["per_iteration"]["0"]["calls"] == 10


def test_nothing_scored_gives_null_statistics_not_nan() -> None:
    builder = SummaryBuilder()
    builder.add(record(None, Status.JUDGE_ERROR))
    stats = builder.build(bad_rows=0)["metrics"]["faithfulness"]["overall"]
    assert stats["mean"] is None and stats["std"] is None and stats["n_scored"] == 0


def test_thresholds() -> None:
    builder = SummaryBuilder()
    builder.add(record(0.8, Status.SCORED))
    summary = builder.build(bad_rows=0)
    checks = check_thresholds(summary, parse_thresholds(["faithfulness=0.8", "rubric=0.1"]))
    assert [c.met for c in checks] == [True, False]
    assert "no scored result" in str(checks[1])


@pytest.mark.parametrize("spec", ["faithfulness", "faithfulness=x", "=0.5", "faithfulness=1.5"])
def test_bad_threshold_specs(spec: str) -> None:
    with pytest.raises(ValueError, match="bad threshold"):
        parse_thresholds([spec])


def test_cost_per_iteration_and_total() -> None:
    builder = SummaryBuilder()
    for iteration, cost in [(0, 0.5), (0, 0.25), (1, 1.0)]:
        builder.add(
            record(1.0, Status.SCORED).model_copy(update={"iteration": iteration, "cost_usd": cost})
        )
    cost = builder.build(bad_rows=0)["cost"]
    assert cost["total_usd"] == pytest.approx(1.75)
    assert cost["per_iteration"]["0"]["cost_usd"] == pytest.approx(0.75)
    assert cost["per_iteration"]["1"]["calls"] == 2


def test_supported_verdicts_without_their_evidence_are_counted() -> None:
    builder = SummaryBuilder()
    for claims, unfounded in [(3, 2), (2, 0), (4, 1)]:
        details = {"n_claims": claims, **({"evidence_not_found": unfounded} if unfounded else {})}
        builder.add(record(0.5, Status.SCORED).model_copy(update={"details": details}))
    builder.add(record(None, Status.JUDGE_ERROR))
    overall = builder.build(bad_rows=0)["metrics"]["faithfulness"]["overall"]
    assert (overall["claims"], overall["evidence_not_found"]) == (9, 3)


def test_metrics_without_claims_have_no_evidence_count() -> None:
    builder = SummaryBuilder()
    builder.add(record(0.5, Status.SCORED))
    overall = builder.build(bad_rows=0)["metrics"]["faithfulness"]["overall"]
    assert "evidence_not_found" not in overall


def test_results_whose_texts_a_model_cut_are_counted_and_shown() -> None:
    from veracity.report.console import others

    builder = SummaryBuilder()
    for cut in (["answer"], [], ["answer", "reference"]):
        builder.add(record(0.5, Status.SCORED).model_copy(update={"details": {"cut": cut}}))
    overall = builder.build(bad_rows=0)["metrics"]["faithfulness"]["overall"]
    assert overall["cut"] == 2
    assert others(overall) == "cut to the model's length 2"
    from veracity.report.html_tables import _statuses

    assert _statuses(overall) == "cut to the model's length 2"  # the HTML report's cell
    plain = SummaryBuilder()
    plain.add(record(0.5, Status.SCORED))
    assert "cut" not in plain.build(bad_rows=0)["metrics"]["faithfulness"]["overall"]


def test_the_console_names_unfounded_evidence_among_other_statuses() -> None:
    from veracity.report.console import others

    stats = {"counts_by_status": {"scored": 3, "judge_error": 1}}
    assert others({**stats, "claims": 9, "evidence_not_found": 3}) == (
        "judge_error 1\nevidence not found 3/9"
    )
    assert others({**stats, "claims": 9, "evidence_not_found": 0}) == "judge_error 1"


def test_the_summary_table_fits_80_columns_without_cutting_a_name() -> None:
    """Issue 16: at 80 columns "semantic_similarity" folded into "semantic_similari" / "ty",
    statuses folded mid-word, and "13/13" scored sat beside "no_claims 1, no_contexts 2"."""
    from rich.console import Console

    from veracity.report.console import print_summary

    builder = SummaryBuilder(["faithfulness", "semantic_similarity"])
    for status, score in [(Status.SCORED, 0.8), (Status.NO_CLAIMS, 1.0), (Status.NO_CONTEXTS, 0)]:
        builder.add(record(score, status))
    for i, status in enumerate([Status.SCORED, Status.MISSING_REFERENCE]):
        builder.add(
            ResultRecord(
                sample_id=f"s{i}", system=None, iteration=0, metric="semantic_similarity",
                score=0.5 if status is Status.SCORED else None, status=status, reason="r",
            )
        )  # fmt: skip
    console = Console(width=80, record=True, color_system=None)
    print_summary(builder.build(bad_rows=0), console)
    text = console.export_text()
    assert "…" not in text
    lines = text.splitlines()
    assert any(line.startswith("semantic_similarity ") for line in lines)
    assert any("missing_reference 1" in line for line in lines)
    faithfulness = next(line for line in lines if line.startswith("faithfulness "))
    # Issue 48: scored is what the mean and the pass rate are over (n_scored), everywhere;
    # the results scored by rule, not by a judgement, are said beside.
    assert " 3/3 " in faithfulness and "no_claims 1" in faithfulness
    assert "(2 of the scored by rule)" in text


def test_the_console_shows_calibrated_probabilities_under_their_metric() -> None:
    """A calibrated metric (the offline judge's faithfulness, by default) has its
    calibrated probabilities in a row of their own, right under its scores."""
    from rich.console import Console

    from veracity.report.console import print_summary

    builder = SummaryBuilder(["faithfulness", "semantic_similarity"])
    for i, (score, calibrated) in enumerate([(1.0, 0.2), (0.5, 0.6)]):
        builder.add(record(score, Status.SCORED).model_copy(
            update={"sample_id": f"s{i}", "calibrated": calibrated}))  # fmt: skip
    builder.add(
        ResultRecord(sample_id="s0", system=None, iteration=0, metric="semantic_similarity",
                     score=0.5, status=Status.SCORED, reason="r")
    )  # fmt: skip
    console = Console(width=100, record=True, color_system=None)
    print_summary(builder.build(bad_rows=0), console)
    lines = console.export_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("faithfulness "))
    row = lines[at + 1].split()
    # Its mean (×100), its share at or above one half, over both results.
    assert row[:2] == ["↳", "calibrated"]
    assert row[2] == "40.0" and row[4] == "50.0" and row[5] == "2/2"
    assert not any("↳ calibrated" in line for line in lines[at + 2 :])
