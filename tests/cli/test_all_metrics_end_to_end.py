"""Every metric of the spec in one ``veracity run``, over real HTTP to the fake server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.in_process import veracity
from veracity.metrics import METRICS
from veracity.testing import FakeLLMServer, synthetic_samples

CONFIG = """
rubrics:
  tone:
    default_pass_min: 3
    dimensions:
      - name: politeness
        description: Is the answer polite?
        levels: {5: "very", 4: "mostly", 3: "neutral", 2: "curt", 1: "rude"}
"""


def test_all_metrics_run_and_summarise(tmp_path: Path) -> None:
    pytest.importorskip("bert_score")
    dataset = tmp_path / "data.jsonl"
    samples = synthetic_samples(6, seed=3)
    rows = [s.model_dump(mode="json") for s in samples]
    rows[0]["answer"] = "I don't know."
    rows[1]["reference"] = None
    rows[2]["contexts"] = []
    dataset.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "veracity.yaml").write_text(CONFIG)
    out = tmp_path / "run"
    metrics = [*METRICS, "rubric:tone"]
    with FakeLLMServer() as server:
        proc = veracity(
            "run", str(dataset), "--metrics", ",".join(metrics), "--judge", "openai/fake",
            "--base-url", server.base_url, "--embedder", "openai/fake-embedding",
            "--config", str(tmp_path / "veracity.yaml"), "--out", str(out),
        )  # fmt: skip
        requests = server.stats
    assert proc.returncode == 0, proc.stderr
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(results) == 6 * len(metrics)
    assert {r["metric"] for r in results} == set(metrics)
    by = {(r["sample_id"], r["metric"]): r for r in results}
    first, second, third = (s.id for s in samples[:3])
    assert by[first, "answer_classification"]["details"]["classification"] == "dont_know"
    assert by[second, "context_recall"]["status"] == "missing_reference"
    assert by[second, "factual_accuracy"]["status"] == "missing_reference"
    assert by[third, "context_precision"]["status"] == "no_contexts"
    assert by[third, "context_recall"]["score"] == 0.0
    for result in results:
        assert result["reason"]
        if result["score"] is not None:
            assert 0.0 <= result["score"] <= 1.0
        assert result["status"] != "judge_error", result

    summary = json.loads((out / "summary.json").read_text())
    classification = summary["metrics"]["answer_classification"]["overall"]["classification"]
    assert set(classification["counts"]) == {"correct", "wrong", "dont_know"}
    assert sum(classification["counts"].values()) == 5  # one sample has no reference
    assert sum(classification["rates"].values()) == pytest.approx(1.0)
    grades = summary["metrics"]["factual_accuracy"]["overall"]["grades"]["counts"]
    assert set(grades) == {"A", "B", "C", "D", "E"}
    assert summary["metrics"]["rubric:tone"]["overall"]["passed"]["counts"]
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["embedder"]["model"] == "fake-embedding"
    assert "chunk_relevance" in manifest["judge"]["prompts"]
    # The user's rubric is a prompt of this run too: its fingerprint is recorded.
    tone = manifest["judge"]["prompts"]["rubric:tone"]
    assert len(tone) >= 8 and tone != manifest["judge"]["prompts"]["rubric:default"]
    assert requests.embeddings > 0
    assert "NaN" not in (out / "results.jsonl").read_text()
