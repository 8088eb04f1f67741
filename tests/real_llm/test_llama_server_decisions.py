"""A decision judge against llama.cpp's own llama-server (the xllamacpp wheel) on loopback.

With a chat model loaded (SmolLM2-135M, which CI sets up for the chat judge's test),
llama-server's ``/v1/systemone`` answers 501 "This model is not a decision model": the run
must stop at once with exit 2, saying so and what to load instead, keeping its directory.

Opt-in, live: with ``VERACITY_DECISION_GGUF`` naming a decision GGUF (Laya, Julia-1, Kev…),
the bundled example is judged through it end to end, every metric scored or
``unsupported_by_judge`` by design.
"""

from __future__ import annotations

import json
import math
import os
from importlib.resources import as_file, files
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.real_llm.servers import LLM_VENV, SETUP, llama_server, required, smollm2_path
from veracity.cli.app import app
from veracity.types import Status

pytest.importorskip("xllamacpp", reason="llama.cpp's server wheel (the dev extra)")
pytestmark = pytest.mark.timeout(600)

RAG = "faithfulness,context_precision,context_recall,answer_relevance"
EVERY_METRIC = f"{RAG},answer_classification,factual_accuracy,rubric"


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "SYSTEMONE_API_KEY", "SYSTEMONE_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return CliRunner()


def test_a_chat_model_behind_llama_servers_systemone_stops_the_run(
    cli: CliRunner, tmp_path: Path
) -> None:
    model = smollm2_path()
    if model is None:
        required(f"no SmolLM2 GGUF in {LLM_VENV} (set it up: {SETUP})")
    out = tmp_path / "run"
    with (
        llama_server(model, tmp_path / "server.log") as url,
        as_file(files("veracity") / "examples" / "rag_sample.jsonl") as dataset,
    ):
        result = cli.invoke(
            app, ["run", str(dataset), "--judge", "systemone/smollm2", "--base-url", url,
                  "--metrics", RAG, "--out", str(out)],
        )  # fmt: skip
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    assert "not a decision model" in said and "Laya" in said  # what it is, what to load
    assert "Traceback" not in result.output
    assert json.loads((out / "run.json").read_text())["status"] == "failed"


def test_a_decision_gguf_judges_the_example(cli: CliRunner, tmp_path: Path) -> None:
    named = os.environ.get("VERACITY_DECISION_GGUF")
    if not named:
        pytest.skip("opt-in: set VERACITY_DECISION_GGUF to a decision model's GGUF file")
    gguf = Path(named)
    assert gguf.is_file(), f"VERACITY_DECISION_GGUF names no file: {gguf}"
    out = tmp_path / "run"
    with (
        llama_server(gguf, tmp_path / "server.log") as url,
        as_file(files("veracity") / "examples" / "rag_sample.jsonl") as dataset,
    ):
        result = cli.invoke(
            app, ["run", str(dataset), "--judge", f"systemone/{gguf.stem}", "--base-url", url,
                  "--metrics", EVERY_METRIC, "--out", str(out), "--concurrency", "2"],
        )  # fmt: skip
    assert result.exit_code in (0, 1), result.output  # 1: a default threshold not met
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    judged = {Status.SCORED, Status.UNSUPPORTED_BY_JUDGE, Status.NO_CLAIMS}
    unjudged = {Status.NO_CONTEXTS, Status.MISSING_REFERENCE, Status.NO_CITATIONS}
    for row in rows:
        status = Status(row["status"])
        assert status in judged | unjudged, (row["metric"], row["reason"])
        if row["score"] is not None:
            assert math.isfinite(row["score"]) and 0.0 <= row["score"] <= 1.0
    claims = [
        claim
        for row in rows
        if row["metric"] == "faithfulness"
        for claim in row["details"].get("claims", [])
    ]
    assert claims and all(
        math.isclose(sum(c["probabilities"].values()), 1.0, abs_tol=1e-3) for c in claims
    )
    assert json.loads((out / "summary.json").read_text())["usage"]["output_tokens"] == 0
