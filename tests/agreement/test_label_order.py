"""``agree`` warns when its labels were given to items not drawn at random (``veracity
label --order uncertain``…): its figures are then no unbiased estimate of agreement."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from tests.agreement import scenario
from veracity import EvaluationResult
from veracity.agreement.console import print_agreement
from veracity.agreement.markdown import markdown_agreement
from veracity.agreement.report import AgreementReport


@pytest.fixture(scope="module")
def result() -> EvaluationResult:
    return scenario.run()


def _printed(report: AgreementReport) -> str:
    buffer = io.StringIO()
    print_agreement(report, Console(file=buffer, width=200))
    return buffer.getvalue()


def test_labels_of_items_not_drawn_at_random_are_warned_of_everywhere(
    result: EvaluationResult,
) -> None:
    rows = [
        {**row, "order": "uncertain" if i % 2 else "random"}
        for i, row in enumerate(scenario.labels())
    ]
    report = result.agreement(rows, resamples=100)
    assert report.order_warning is not None
    assert "15 of 30" in report.order_warning and "not an unbiased" in report.order_warning
    assert "not an unbiased" in _printed(report)
    assert "not an unbiased" in markdown_agreement(report)
    assert report.as_dict()["order_warning"] == report.order_warning


def test_random_labels_and_labels_without_an_order_give_no_warning(
    result: EvaluationResult,
) -> None:
    random_rows = [{**row, "order": "random"} for row in scenario.labels()]
    for rows in (scenario.labels(), random_rows):
        report = result.agreement(rows, resamples=100)
        assert report.order_warning is None
        assert "unbiased" not in _printed(report)
