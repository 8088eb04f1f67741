"""The agreement's data: each class serialised under its own field names, and the figures a
table shows for a metric declared once."""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

import pytest

from tests.agreement import scenario
from veracity.agreement.html import render_agreement_html
from veracity.agreement.markdown import markdown_agreement
from veracity.agreement.model import (
    FIGURE_NAMES,
    Disagreement,
    Figures,
    GateCheck,
    GroupAgreement,
    MetricAgreement,
    Vote,
)
from veracity.agreement.report import AgreementReport


@pytest.fixture(scope="module")
def report() -> AgreementReport:
    labels = [
        {**row, "helpfulness": True, "seconds": 12}
        for row in [*scenario.labels(), {"id": "nowhere", "faithfulness": True}]
    ]
    return scenario.run().agreement(labels, resamples=100, top=2).gated(["auroc=0.5"])


def _names(cls: Any) -> set[str]:
    return {f.name for f in fields(cls)}


def test_every_class_serialises_under_its_own_field_names(report: AgreementReport) -> None:
    data = json.loads(json.dumps(report.as_dict()))
    (metric,) = data["metrics"][0]
    assert set(metric) == _names(MetricAgreement) | {"not_used", "caveats"}
    assert set(metric["overall"]) == _names(GroupAgreement)
    assert set(metric["overall"]["figures"]) == _names(Figures)
    (alarm, *_) = metric["overall"]["false_alarms"]
    assert set(alarm) == _names(Disagreement)
    assert set(alarm["votes"][0]) == set(Vote._fields)
    (check,) = data["gates"]
    assert set(check) == _names(GateCheck) | {"met"}
    assert check["gate"] == {"figure": "auroc", "minimum": 0.5, "metric": None}
    # The values are the fields' own, nested as the classes nest.
    faithfulness = report.metrics[0][0]
    assert metric["missing_ids"] == list(faithfulness.missing_ids) == ["nowhere"]
    assert metric["not_used"] == faithfulness.not_used()
    auroc = faithfulness.overall.figures.auroc
    assert metric["overall"]["figures"]["auroc"]["value"] == auroc.value
    assert data["gates_met"] is report.gates_met


def test_the_figures_a_table_shows(report: AgreementReport) -> None:
    metric = report.metrics[0][0]
    # Yes/no labels and a score that reads as a probability: no weighted κ or Spearman.
    assert metric.figure_names() == [
        "auroc",
        "balanced_accuracy",
        "balanced_accuracy_cv",
        "kappa",
        "brier",
        "ece",
    ]
    assert set(metric.figure_names()) <= set(FIGURE_NAMES)
    assert {row["metric"] for row in report.rows()} == {"faithfulness"}
    assert all(f"{name}_low" in report.rows()[0] for name in FIGURE_NAMES)


def test_the_columns_not_read_are_named_in_every_output(report: AgreementReport) -> None:
    # Labels of no known metric are not guessed at from their values: they are named.
    assert report.labels.targets() == ("faithfulness",)
    ignored = report.as_dict()["labels"]["ignored"]
    assert set(ignored) == {"helpfulness", "seconds"}
    assert "--scale helpfulness=binary" in ignored["helpfulness"]
    printed = " ".join(str(report).split())
    assert "not read: helpfulness: not a known metric" in printed
    assert "Not read: helpfulness: not a known metric" in markdown_agreement(report)
    assert "not read: seconds: not a known metric" in render_agreement_html(report)
