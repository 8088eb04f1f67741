"""summary.json's typed model: every summary veracity writes reads back whole, and one
that is not a summary is not read by guesswork."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.report.ci_runs import records
from tests.report.factory import rec
from veracity.report import summarize
from veracity.report.summary_file import as_read, read_summary, summary_model
from veracity.types import Status


def _written() -> list[dict[str, object]]:
    iterations = [
        rec(score, sample_id=f"s{i}", iteration=it, question_type="fact")
        for i, score in enumerate((0.2, 0.9, 0.6))
        for it in (0, 1)
    ]
    labelled = [
        rec(
            1.0,
            metric="answer_classification",
            sample_id="a",
            details={"classification": "correct"},
        ),
        rec(
            0.0, metric="answer_classification", sample_id="b", details={"classification": "wrong"}
        ),
        rec(None, metric="answer_classification", sample_id="c", status=Status.MISSING_REFERENCE),
    ]
    return [
        summarize(records(), ["faithfulness", "context_recall"], {"faithfulness": 0.7}),
        summarize(iterations, ["faithfulness"], {}),
        summarize(labelled, ["answer_classification"], {"answer_classification": 0.5}),
    ]


@pytest.mark.parametrize("summary", _written())
def test_every_summary_written_reads_back_whole(summary: dict[str, object]) -> None:
    model = summary_model(summary)
    assert model is not None
    assert model.model_dump(mode="json", exclude_unset=True) == json.loads(json.dumps(summary))
    read = as_read(summary)
    for groups in read["metrics"].values():
        assert set(groups["overall"]) >= {"mean", "ci95", "counts_by_status", "calibrated"}


@pytest.mark.parametrize(
    "text",
    [
        "{}",
        '{"metrics": {"faithfulness": "high"}}',
        '{"metrics": {"faithfulness": {"overall": {"ci95": {"low": 0.1, "high": 0.4}}}}}',
        '{"metrics": {"faithfulness": {"overall": {"mean": "lots"}}}}',
        "[1, 2]",
        "not json",
    ],
)
def test_what_is_not_a_summary_is_not_read(tmp_path: Path, text: str) -> None:
    (tmp_path / "summary.json").write_text(text, encoding="utf-8")
    assert read_summary(tmp_path) is None
    assert read_summary(tmp_path / "absent") is None
