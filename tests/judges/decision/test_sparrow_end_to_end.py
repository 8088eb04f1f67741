"""The decision judge end to end against a real third-party System One server on loopback,
sparrow-decider (its answers are near chance: this tests the wire and the pipeline, not
judging): the bundled example, every metric, from the CLI and from Python; each result
scored, or unscored by design with its reason, never a judge error."""

from __future__ import annotations

import json
import math
from importlib.resources import as_file, files
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from veracity import evaluate
from veracity.cli.app import app
from veracity.config import RunConfig
from veracity.decisions import SystemOne
from veracity.judges.decision import DecisionJudge
from veracity.types import Status

EVERY_METRIC = (
    "faithfulness,context_precision,context_recall,answer_relevance,ragas_score,"
    "answer_classification,factual_accuracy,rubric,citation_recall,citation_precision"
)
# What a sample of the example may lack (no contexts, no reference, nothing cited) or say
# (nothing to check): unscored or vacuous by design.
BY_DESIGN = {
    Status.SCORED,
    Status.NO_CLAIMS,
    Status.NO_CONTEXTS,
    Status.MISSING_REFERENCE,
    Status.NO_CITATIONS,
}


def _check(rows: list[dict[str, Any]]) -> None:
    assert rows
    for row in rows:
        assert Status(row["status"]) in BY_DESIGN, (row["metric"], row["reason"])
        score = row["score"]
        assert score is None or (isinstance(score, float) and math.isfinite(score))
    scored = {row["metric"] for row in rows if row["status"] == "scored"}
    assert scored >= set(EVERY_METRIC.split(",")) - {"citation_precision", "citation_recall"}


def test_every_metric_from_the_cli(sparrow_decider: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    with as_file(files("veracity") / "examples" / "rag_sample.jsonl") as dataset:
        result = CliRunner().invoke(
            app, ["run", str(dataset), "--judge", "systemone/sparrow-nano-general",
                  "--base-url", sparrow_decider, "--metrics", EVERY_METRIC, "--out", str(out)],
        )  # fmt: skip
    assert result.exit_code in (0, 1), result.output  # 1: a default threshold not met
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    _check(rows)
    judge = json.loads((out / "run.json").read_text())["judge"]
    assert judge["provider"] == "systemone" and judge["claims"]["source"] == "offline segmentation"


@pytest.mark.filterwarnings("ignore::veracity.dataset.BadRowsWarning")
def test_every_metric_from_python(sparrow_decider: str) -> None:
    judge = DecisionJudge(SystemOne("sparrow-nano-general", base_url=sparrow_decider))
    with as_file(files("veracity") / "examples" / "rag_sample.jsonl") as dataset:
        result = evaluate(
            dataset, EVERY_METRIC.split(","), judge, config=RunConfig(cache=False), progress=False
        )
    _check([r.model_dump(mode="json") for r in result.results])
    claims = result.to_pandas(claims=True)
    weighed = claims["probabilities"].dropna()
    assert len(weighed) > 0
    assert all(math.isclose(sum(p.values()), 1.0, abs_tol=1e-3) for p in weighed)
