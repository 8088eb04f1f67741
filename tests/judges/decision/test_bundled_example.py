"""Both decision wire formats on the bundled example from Python, as a user names them:
``evaluate(…, judge="systemone/…" | "openai-decisions/…", base_url=…)`` against the fake
decision server; every metric scored or unscored by design, never a judge error."""

from __future__ import annotations

from importlib.resources import as_file, files

import pytest

from veracity import evaluate
from veracity.config import RunConfig
from veracity.testing import FakeDecisionServer
from veracity.types import Status

METRICS = [
    "faithfulness", "context_precision", "context_recall", "answer_relevance", "ragas_score",
    "answer_classification", "factual_accuracy", "rubric", "citation_recall",
    "citation_precision",
]  # fmt: skip
BY_DESIGN = {
    Status.SCORED,
    Status.NO_CLAIMS,
    Status.NO_CONTEXTS,
    Status.MISSING_REFERENCE,
    Status.NO_CITATIONS,
}


@pytest.mark.parametrize("judge", ["systemone/fake-decider", "openai-decisions/gpt-6-luna"])
def test_every_metric_on_the_bundled_example(judge: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with (
        FakeDecisionServer() as server,
        as_file(files("veracity") / "examples" / "rag_sample.jsonl") as dataset,
    ):
        result = evaluate(
            dataset, METRICS, judge, config=RunConfig(base_url=server.base_url, cache=False)
        )
        requests = server.stats.decisions
    assert {r.status for r in result.results} <= BY_DESIGN
    assert {r.metric for r in result.results if r.status is Status.SCORED} == set(METRICS)
    assert result.manifest["judge"]["name"] == judge
    usage = result.summary["usage"]
    assert usage["calls"] == requests and usage["output_tokens"] == 0
