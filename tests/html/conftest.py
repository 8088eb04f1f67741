"""Run directories to report on, built by real runs against the fake LLM server, and a
headless Chromium to look at the reports with."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.html.browser import Chromium, find_chromium
from veracity import evaluate
from veracity.testing import ChatRequest, FakeLLMServer, RuleBasedResponder, synthetic_samples

SCRIPT = "<script>alert(1)</script>"
IMG = '<img src=x onerror="window.__pwned=1">'
PAYLOAD = f"{SCRIPT} {IMG}"
METRICS = [
    "faithfulness",
    "context_precision",
    "context_recall",
    "answer_relevance",
    "factual_accuracy",
    "answer_classification",
    "rubric",
]
TYPES = ("factoid", "multi_hop", "comparison")


def poisoned_responder(request: ChatRequest) -> str:
    """The rule-based judge, with the payload added to every reason it writes."""
    reply = RuleBasedResponder()(request)
    data = json.loads(reply)
    if isinstance(data, dict):
        for verdict in data.get("verdicts") or []:
            verdict["reason"] = f"{verdict.get('reason', '')} {PAYLOAD}"
    return json.dumps(data)


def dataset_rows(count: int = 6) -> list[dict[str, Any]]:
    rows = []
    for system in ("baseline", "improved"):
        for i, sample in enumerate(synthetic_samples(count, seed=7, system=system)):
            row = sample.model_dump(mode="json")
            row["question_type"] = TYPES[i % len(TYPES)]
            rows.append(row)
    # One sample whose every text field carries the payload.
    rows.append(
        {
            "id": f"evil-{SCRIPT}",
            "system": f"sys {IMG}",
            "question_type": f"type {SCRIPT}",
            "question": f"What is the bridge? {PAYLOAD}",
            "answer": f"The bridge is red. {PAYLOAD} The bridge is not old.",
            "contexts": [f"The bridge is red. {PAYLOAD}", "The bridge is old."],
            "reference": f"The bridge is red and old. {PAYLOAD}",
            "history": [
                {"role": "user", "content": f"Tell me about bridges. {PAYLOAD}"},
                f"An earlier turn of no known speaker. {SCRIPT}",
            ],
        }
    )
    return rows


def make_run(
    directory: Path,
    rows: list[dict[str, Any]],
    *,
    metrics: list[str] | None = None,
    iterations: int = 1,
) -> Path:
    """A finished run directory of ``rows`` (written as ``directory/data.jsonl``)."""
    directory.mkdir(parents=True, exist_ok=True)
    dataset = directory / "data.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = directory / "run"
    with FakeLLMServer(poisoned_responder) as server:
        evaluate(
            dataset,
            metrics or METRICS,
            "openai/fake",
            base_url=server.base_url,
            embedder="openai/fake-embedding",
            out=out,
            iterations=iterations,
            cache=False,
            keep_results=False,
        )
    return out


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_run(tmp_path_factory.mktemp("report"), dataset_rows(), iterations=2)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = find_chromium()
    if path is None:
        pytest.skip("chromium is not on PATH (Debian: apt-get install chromium)")
    return path


@pytest.fixture
def browser(chromium_path: str) -> Iterator[Chromium]:
    with Chromium(chromium_path) as chromium:
        yield chromium
