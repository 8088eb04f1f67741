"""Run directories to report on, built by real runs against the fake LLM server, and a
headless Chromium to look at the reports with."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.html.browser import DESKTOP, Page
from veracity import evaluate
from veracity.config import RunConfig
from veracity.dataset import dataset_fingerprint
from veracity.report.summary import summarize
from veracity.testing import ChatRequest, FakeLLMServer, RuleBasedResponder, synthetic_samples
from veracity.types import ResultRecord, Status

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
T = TypeVar("T")


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
        off_loop(
            evaluate,
            dataset,
            metrics or METRICS,
            "openai/fake",
            config=RunConfig(
                base_url=server.base_url,
                embedder="openai/fake-embedding",
                iterations=iterations,
                cache=False,
                keep_results=False,
            ),
            out=out,
        )
    return out


def off_loop(function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``function(*args, **kwargs)`` in a thread of its own. Playwright's sync API keeps
    its event loop marked as running in the test's thread, and ``evaluate`` starts one of
    its own, which asyncio refuses there."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(function, *args, **kwargs).result()


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_run(tmp_path_factory.mktemp("report"), dataset_rows(), iterations=2)


@pytest.fixture
def browser(chromium: Any) -> Iterator[Page]:
    """A fresh page, 1280 px wide, in a context of its own."""
    context = chromium.new_context(viewport=DESKTOP)
    try:
        yield Page(context.new_page())
    finally:
        context.close()


LONG_ANSWER = (
    "The Golden Gate Bridge opened in 1937 and spans the strait between the bay and the "
    "ocean. It is painted international orange so that ships can see it in fog. "
    "The bridge was designed by Gustave Eiffel. Its main span is about 1,280 metres long, "
    "which made it the longest suspension span in the world when it opened."
)
CONTRADICTED = "The bridge was designed by Gustave Eiffel."
# Not in the answer's words: the judge paraphrased it, so the page lists it instead.
PARAPHRASED = f"The main span was the longest in the world in 1937. {SCRIPT}"


def _claim(claim: str, verdict: str, reason: str) -> dict[str, Any]:
    return {"claim": claim, "verdict": verdict, "reason": reason, "evidence": ""}


# sample id → (answer, faithfulness score, status, reason, claims); a context_precision of
# 0.9 for every sample but "error", so the passing sample passes on both metrics.
TRIAGE = {
    "passes": ("Paris is the capital of France.", 1.0, Status.SCORED, "all supported",
               [_claim("Paris is the capital of France.", "supported", "stated")]),
    "fails": (LONG_ANSWER, 0.5, Status.SCORED, "2 of 4 claims supported", [
        _claim("The Golden Gate Bridge opened in 1937.", "supported", "stated"),
        _claim("It is painted international orange.", "supported", "stated"),
        _claim(CONTRADICTED, "contradicted", f"the contexts name Joseph Strauss {IMG}"),
        _claim(PARAPHRASED, "not_enough_info", "the contexts give no ranking"),
    ]),
    "abstains": ("I do not know.", 1.0, Status.NO_CLAIMS, "the answer makes no claim", []),
    "unretrieved": ("It is 8,849 m high.", 0.0, Status.NO_CONTEXTS, "nothing was retrieved", []),
    "broken": ("It rains in Spain.", None, Status.JUDGE_ERROR,
               f"the judge's reply was not JSON {SCRIPT}", []),
}  # fmt: skip


THRESHOLDS = {"faithfulness": 0.7}  # context_precision keeps the default, 0.5


def triage_run(directory: Path, samples: Mapping[str, Any] = TRIAGE) -> Path:
    """A run directory written by hand, one sample of each kind a reader triages: one that
    passes, one below its threshold with unsupported claims, one without claims, one
    without contexts, one the judge failed on. Its dataset is ``directory/data.jsonl``."""
    run = directory / "run"
    run.mkdir(parents=True)
    rows, records = [], []
    for sample_id, (answer, score, status, reason, claims) in samples.items():
        rows.append({"id": sample_id, "question": f"What about {sample_id}?",
                     "answer": answer, "contexts": ["A context."]})  # fmt: skip
        details = {"claims": claims, "n_claims": len(claims)} if claims else {}
        records.append(ResultRecord(metric="faithfulness", score=score, status=status,
                                    reason=reason, details=details, sample_id=sample_id,
                                    system=None, iteration=0))  # fmt: skip
        records.append(ResultRecord(metric="context_precision", score=0.9, status=Status.SCORED,
                                    reason="relevant first", sample_id=sample_id, system=None,
                                    iteration=0))  # fmt: skip
    dataset = directory / "data.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (run / "results.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in records))
    summary = summarize(records, ["faithfulness", "context_precision"], THRESHOLDS)
    (run / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    manifest = {"metrics": ["faithfulness", "context_precision"], "status": "completed",
                "dataset": {"path": str(dataset), "sha256": dataset_fingerprint(dataset)},
                "settings": {"thresholds": THRESHOLDS}}  # fmt: skip
    (run / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    return run
