"""A run as a JUnit XML report, the test-result format CI systems read.

One test case per sample × metric (× iteration when there are several) for each metric
that has a pass threshold: a score at or above it passes, a score below it is a
``<failure>`` carrying the score, the threshold, the reason and the failing claims; a
judge error is an ``<error>``; any other result without a score (the metric could not
apply) is ``<skipped>`` with its status and reason. A gate on the calibrated probability
(``faithfulness:calibrated``) has cases of its own, on each result's ``calibrated``. One
``<testsuite>`` per gate, with the judge, the model and the threshold as properties. The
layout keeps to the JUnit schema Jenkins' xUnit plugin publishes (``junit-10.xsd``), which
the common CI readers accept.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter

from veracity._version import __version__
from veracity.report.excerpts import cut, failing_claims, failing_dimensions
from veracity.report.keys import OVERALL
from veracity.report.run_data import RunData
from veracity.report.thresholds import CALIBRATED, gated_metric
from veracity.types import ResultRecord, Status

# Characters XML 1.0 cannot hold at all, escaped or not (ElementTree writes them as they
# are, and the file would not parse): control characters other than tab and newlines.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
MESSAGE_LIMIT = 300


def xml_text(value: object) -> str:
    return _NOT_XML.sub("\ufffd", "" if value is None else str(value))


def _seconds(value: float) -> str:
    return f"{max(0.0, value):.3f}"


def _properties(run: RunData, gate: str) -> ET.Element:
    judge = run.judge
    overall = run.metrics[gated_metric(gate)][OVERALL]
    stats = overall.get("calibrated") or {} if gate.endswith(CALIBRATED) else overall
    interval = stats.get("ci95")
    mean = stats.get("mean")
    found = {
        "judge": judge.get("name"),
        "judge.provider": judge.get("provider"),
        "judge.model": judge.get("model"),
        "threshold": f"{run.thresholds[gate]:g}",
        "mean": None if mean is None else f"{mean:.4f}",
        "ci95": None if not interval else f"{interval[0]:.4f}..{interval[1]:.4f}",
        "scored": f"{overall['n_scored']}/{overall['n']}",
        "calibrated": None if stats is overall else str(stats.get("n", 0)),
        "veracity.version": __version__,
    }
    properties = ET.Element("properties")
    for name, value in found.items():
        if value is not None:
            ET.SubElement(properties, "property", name=name, value=xml_text(value))
    return properties


def failure_text(record: ResultRecord) -> str:
    """The reason and the failing claims (or rubric dimensions) of a result, as lines."""
    lines = [cut(record.reason)]
    claims, more = failing_claims(record.details)
    if claims:
        lines.append("failing claims:")
        for claim in claims:
            line = f"- [{claim['verdict']}] {claim['claim']}"
            if claim.get("citations"):
                line += f" ({claim['citations']})"
            lines.append(line + (f" — {claim['reason']}" if claim["reason"] else ""))
        if more:
            lines.append(f"- … and {more} more")
    for dimension in failing_dimensions(record.details):
        lines.append(
            f"- dimension {dimension['name']}: {dimension['score']} < {dimension['minimum']}"
            + (f" — {dimension['reasoning']}" if dimension["reasoning"] else "")
        )
    return xml_text("\n".join(lines))


def _case(
    record: ResultRecord, gate: str, threshold: float, iterations: int
) -> tuple[ET.Element, str]:
    """The test case of one result and its outcome: passed, failure, error or skipped."""
    classname = gate if record.system is None else f"{gate}.{record.system}"
    name = record.sample_id if iterations < 2 else f"{record.sample_id} #{record.iteration}"
    case = ET.Element(
        "testcase",
        name=xml_text(name),
        classname=xml_text(classname),
        time=_seconds(record.latency_s),
    )
    calibrated = gate.endswith(CALIBRATED)
    value = record.calibrated if calibrated else record.score
    if value is not None:
        if value >= threshold:
            return case, "passed"
        what = "calibrated probability" if calibrated else "score"
        message = f"{what} {value:.4f} < threshold {threshold:g}: {record.reason}"
        failure = ET.SubElement(
            case, "failure", type="below_threshold", message=xml_text(cut(message, MESSAGE_LIMIT))
        )
        failure.text = failure_text(record)
        return case, "failure"
    if record.score is not None:  # scored, but the calibration says nothing of it
        why = f"no calibrated probability for a {record.metric} score of {record.score:.4f}"
        ET.SubElement(case, "skipped", type="not_calibrated", message=xml_text(why))
        return case, "skipped"
    message = xml_text(cut(f"{record.status.value}: {record.reason}", MESSAGE_LIMIT))
    if record.status is Status.JUDGE_ERROR:
        error = ET.SubElement(case, "error", type=record.status.value, message=message)
        error.text = xml_text(record.reason)
        return case, "error"
    ET.SubElement(case, "skipped", type=record.status.value, message=message)
    return case, "skipped"


def _tally(outcomes: Counter[str], seconds: float, *, skipped: bool = True) -> dict[str, str]:
    """A suite's (or all suites') counts by outcome and time, as JUnit's attributes."""
    counts = {"tests": outcomes.total(), "failures": outcomes["failure"]}
    counts |= {"errors": outcomes["error"]} | ({"skipped": outcomes["skipped"]} if skipped else {})
    return {name: str(count) for name, count in counts.items()} | {"time": _seconds(seconds)}


def junit_element(run: RunData) -> ET.Element:
    """The JUnit document of ``run``: its ``<testsuites>`` (empty when no metric has a
    threshold)."""
    gates = [gate for gate in run.thresholds if gated_metric(gate) in run.metrics]
    cases: dict[str, list[ET.Element]] = {gate: [] for gate in gates}
    outcomes = {gate: Counter[str]() for gate in gates}
    seconds = dict.fromkeys(gates, 0.0)
    for record in run.records():
        for gate in gates:
            if gated_metric(gate) == record.metric:
                case, outcome = _case(record, gate, run.thresholds[gate], run.iterations)
                cases[gate].append(case)
                outcomes[gate][outcome] += 1
                seconds[gate] += record.latency_s
    root = ET.Element("testsuites", name="veracity")
    for gate in gates:
        attributes = {"name": xml_text(gate)} | _tally(outcomes[gate], seconds[gate])
        suite = ET.SubElement(root, "testsuite", attributes)
        suite.append(_properties(run, gate))
        suite.extend(cases[gate])
    everything = sum(outcomes.values(), Counter[str]())
    root.attrib.update(_tally(everything, sum(seconds.values()), skipped=False))
    ET.indent(root)
    return root


def junit_xml(run: RunData) -> bytes:
    """The JUnit report of ``run`` as UTF-8 bytes, with an XML declaration."""
    xml: bytes = ET.tostring(junit_element(run), encoding="utf-8", xml_declaration=True)
    return xml + b"\n"
