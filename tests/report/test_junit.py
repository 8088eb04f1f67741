"""The JUnit report: valid against the schema CI readers use, and read back to the same
counts, outcomes and messages."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema

from tests.report.ci_runs import HOSTILE, records, result
from tests.report.factory import rec
from veracity.report.junit import failure_text, junit_xml
from veracity.report.run_data import load_run

SCHEMA = xmlschema.XMLSchema(Path(__file__).parents[1] / "data" / "junit.xsd")


def parsed(xml: bytes) -> ET.Element:
    SCHEMA.validate(xml.decode("utf-8"))
    return ET.fromstring(xml)


def test_one_case_per_sample_and_metric_with_a_threshold() -> None:
    root = parsed(junit_xml(load_run(result())))
    # context_recall has no threshold: no suite of its own.
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == "faithfulness"
    cases = suite.findall("testcase")
    assert len(cases) == 8  # 4 samples × 2 systems
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("8", "2", "2")
    assert suite.get("skipped") == "0"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("8", "2", "2")
    assert {c.get("classname") for c in cases} == {"faithfulness.base", "faithfulness.rerank"}
    assert sorted(c.get("name") or "" for c in cases) == sorted(["s1", "s2", "s3", "s4"] * 2)
    assert float(suite.get("time") or 0) == pytest.approx(8 * 0.25)
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties["judge"] == "openai/gpt-4o-mini"
    assert properties["judge.model"] == "gpt-4o-mini"
    assert properties["threshold"] == "0.7"
    assert properties["scored"] == "6/8"


def test_failure_carries_score_threshold_reason_and_failing_claims() -> None:
    root = parsed(junit_xml(load_run(result())))
    case = next(
        c
        for c in root.iter("testcase")
        if c.get("name") == "s3" and c.get("classname") == "faithfulness.base"
    )
    failure = case.find("failure")
    assert failure is not None
    message = failure.get("message") or ""
    assert message.startswith("score 0.5000 < threshold 0.7: 1 of 2 supported a <b>&amp;")
    text = failure.text or ""
    assert "failing claims:" in text
    # The contradicted claim with its verdict and reason; the supported one is not listed.
    assert "- [contradicted] The tower is green a <b>&amp;" in text
    assert "— it is grey" in text
    assert "The tower is in Paris." not in text
    # The control character XML cannot hold is replaced, everything else is kept as is.
    assert "\x07" not in text
    assert "\ufffdbell" in text


def test_judge_errors_are_errors_and_inapplicable_results_are_skipped() -> None:
    root = parsed(junit_xml(load_run(result(faithfulness=0.7, context_recall=0.5))))
    cases = {(c.get("classname"), c.get("name")): c for c in root.iter("testcase")}
    error = cases["faithfulness.base", "s4"].find("error")
    assert error is not None
    assert error.get("type") == "judge_error"
    assert "HTTP 503" in (error.get("message") or "")
    skipped = cases["context_recall.rerank", "s2"].find("skipped")
    assert skipped is not None
    assert skipped.get("message") == "missing_reference: no reference answer"
    passed = cases["faithfulness.rerank", "s1"]
    assert list(passed) == []
    recall = next(s for s in root.iter("testsuite") if s.get("name") == "context_recall")
    assert (recall.get("tests"), recall.get("skipped"), recall.get("failures")) == ("4", "2", "0")


def test_iterations_name_their_cases() -> None:
    items = [rec(0.9, sample_id="s1", iteration=i) for i in range(2)]
    root = parsed(junit_xml(load_run(result(items, faithfulness=0.5))))
    assert [c.get("name") for c in root.iter("testcase")] == ["s1 #0", "s1 #1"]


def test_a_threshold_given_on_top_rebuilds_the_pass_rates() -> None:
    run = load_run(result(), {"faithfulness": 0.95, "context_recall": 0.9})
    assert run.rebuilt
    assert run.thresholds == {"faithfulness": 0.95, "context_recall": 0.9}
    # 0.9 now fails too: s1 of both systems joins s3.
    assert run.metrics["faithfulness"]["overall"]["pass_rate"] == pytest.approx(2 / 6)
    root = parsed(junit_xml(run))
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert suites["faithfulness"].get("failures") == "4"
    assert suites["context_recall"].get("failures") == "2"  # 0.8 < 0.9


def test_no_threshold_means_no_case_and_an_unknown_metric_is_refused() -> None:
    root = parsed(junit_xml(load_run(result(records()[4:6], context_recall=0.5))))
    assert root.get("tests") == "2"
    with pytest.raises(ValueError, match="'answer_relevance', a metric this run does not have"):
        load_run(result(), {"answer_relevance": 0.5})


def test_the_schema_rejects_what_ci_readers_reject() -> None:
    """The schema is no rubber stamp: it refuses a suite without counts, and an attribute
    the readers do not know."""
    assert not SCHEMA.is_valid('<testsuites><testsuite name="x"/></testsuites>')
    bad = '<testsuites skipped="1"><testsuite name="x" tests="0" failures="0" errors="0"/>'
    assert not SCHEMA.is_valid(bad + "</testsuites>")
    assert SCHEMA.is_valid(
        '<testsuites><testsuite name="x" tests="0" failures="0" errors="0"/></testsuites>'
    )


def test_hostile_text_stays_well_formed() -> None:
    item = rec(0.1, sample_id=HOSTILE, system=HOSTILE, reason=HOSTILE)
    root = parsed(junit_xml(load_run(result([item], faithfulness=0.5))))
    (case,) = root.iter("testcase")
    assert case.get("name") == HOSTILE.replace("\x07", "\ufffd")


def test_a_gate_on_the_calibrated_probability_has_cases_of_its_own() -> None:
    calibrated = {"s1": 0.8, "s2": 0.4}  # s3 scored but not calibrated; s4 a judge error
    items = [
        r.model_copy(update={"calibrated": calibrated.get(r.sample_id)})
        if r.metric == "faithfulness"
        else r
        for r in records()
    ]
    run = load_run(result(items, **{"faithfulness": 0.7, "faithfulness:calibrated": 0.6}))
    root = parsed(junit_xml(run))
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert set(suites) == {"faithfulness", "faithfulness:calibrated"}
    gate = suites["faithfulness:calibrated"]
    assert (gate.get("tests"), gate.get("failures"), gate.get("errors")) == ("8", "2", "2")
    assert gate.get("skipped") == "2"
    cases = {(c.get("classname"), c.get("name")): c for c in gate.findall("testcase")}
    failure = cases[("faithfulness:calibrated.base", "s2")].find("failure")
    assert failure is not None
    assert "calibrated probability 0.4000 < threshold 0.6" in (failure.get("message") or "")
    skipped = cases[("faithfulness:calibrated.rerank", "s3")].find("skipped")
    assert skipped is not None and skipped.get("type") == "not_calibrated"
    properties = {p.get("name"): p.get("value") for p in gate.iter("property")}
    assert properties["threshold"] == "0.6"
    assert properties["mean"] == "0.6000"  # of the four calibrated probabilities
    assert properties["calibrated"] == "4"
    # The plain gate is untouched by the calibrated one.
    assert suites["faithfulness"].get("failures") == "2"


def test_a_misattributed_claim_says_what_it_cites() -> None:
    claim = {"claim": "It was built in 1889.", "verdict": "supported",
             "attribution": "misattributed", "cites": [1], "supported_by": [2]}  # fmt: skip
    record = rec(0.5, metric="citation_precision", details={"claims": [claim]})
    assert "- [misattributed] It was built in 1889. (cites [1], supported by [2])" in (
        failure_text(record)
    )
