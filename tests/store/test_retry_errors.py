"""Judge errors asked again: ``--retry-errors``, and a judge_error's replies never replayed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.in_process import veracity
from veracity.config import RunConfig
from veracity.evaluation import aevaluate
from veracity.testing import ChatRequest, FakeLLMServer, Responder, RuleBasedResponder
from veracity.types import Status

ROWS: list[dict[str, Any]] = [
    {
        "id": "q1",
        "question": "Where is the Eiffel Tower?",
        "contexts": ["The Eiffel Tower is a wrought-iron tower in Paris, France."],
        "answer": "The Eiffel Tower is in Paris.",
    },
    {
        "id": "q2",
        "question": "Who wrote Hamlet?",
        "contexts": ["Hamlet is a tragedy written by William Shakespeare."],
        "answer": "Hamlet was written by William Shakespeare.",
    },
    {
        "id": "q3",
        "question": "What is the boiling point of water?",
        "contexts": ["Water boils at 100 degrees Celsius at sea level."],
        "answer": "Water boils at 100 degrees Celsius.",
    },
]
# What must not change for a result that was not retried (latency and usage may).
COMPARED = ("sample_id", "metric", "iteration", "score", "status", "reason", "details")


def refusing(topic: str) -> Responder:
    """The rule-based judge, refusing every question about ``topic`` (re-asks included)."""
    judge = RuleBasedResponder()

    def respond(request: ChatRequest) -> str:
        return "I cannot help with that." if topic in request.first_user else judge(request)

    return respond


def run(dataset: Path, out: Path, server: FakeLLMServer, *flags: str, exits: int = 0) -> str:
    done = veracity(
        "run", str(dataset), "--judge", "openai/m", "--base-url", server.base_url,
        "--out", str(out), *flags,
    )  # fmt: skip
    assert done.returncode == exits, done.stderr
    return done.stderr


def results(out: Path) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return {row["sample_id"]: {key: row[key] for key in COMPARED} for row in rows}


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    return path


def test_retry_errors_asks_again_for_the_judge_errors_only(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    with FakeLLMServer(responder=refusing("Hamlet")) as server:
        stderr = run(dataset, out, server, exits=3)  # 1 of 3 unscored: too many
        assert "--retry-errors" in stderr  # the way out is named
        before = results(out)
        assert before["q2"]["status"] == "judge_error"
        assert {before[q]["status"] for q in ("q1", "q3")} == {"scored"}

        server.responder = RuleBasedResponder()  # the judge works again
        server.reset_stats()
        run(dataset, out, server, exits=3)  # a plain re-run keeps every result: no call
        assert server.stats.completions == 0
        assert results(out) == before

        run(dataset, out, server, "--retry-errors")
        # q2's claim extraction and verification; nothing for q1 and q3
        assert server.stats.completions == 2
        assert all("Hamlet" in r["messages"][-1]["content"] for r in server.requests)
    after = results(out)
    assert after["q2"]["status"] == "scored" and after["q2"]["score"] == 1.0
    assert {q: after[q] for q in ("q1", "q3")} == {q: before[q] for q in ("q1", "q3")}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["metrics"]["faithfulness"]["overall"]["n_scored"] == 3
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["status"] == "completed" and manifest["settings"]["retry_errors"] is True


def test_a_new_run_does_not_replay_the_replies_of_a_judge_error(
    dataset: Path, tmp_path: Path
) -> None:
    with FakeLLMServer(responder=refusing("Hamlet")) as server:
        run(dataset, tmp_path / "a", server, exits=3)
        server.responder = RuleBasedResponder()
        server.reset_stats()
        run(dataset, tmp_path / "b", server)  # same cache, new run directory
        # the refusals were not kept: q2 is asked again; q1 and q3 come from the cache
        assert server.stats.completions == 2
    assert results(tmp_path / "b")["q2"]["status"] == "scored"


def test_retry_errors_needs_a_run_to_retry(dataset: Path, tmp_path: Path) -> None:
    proc = veracity(
        "run", str(dataset), "--judge", "offline", "--out", str(tmp_path / "none"), "--retry-errors"
    )
    assert proc.returncode == 2
    assert "--retry-errors" in proc.stderr and str(tmp_path / "none") in proc.stderr
    assert "Traceback" not in proc.stderr


async def test_the_api_retries_judge_errors_in_its_run_directory(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with FakeLLMServer(responder=refusing("Hamlet")) as server:
        first = await aevaluate(
            ROWS, ["faithfulness"], "openai/m", config=RunConfig(base_url=server.base_url), out=out
        )
        server.responder = RuleBasedResponder()
        again = await aevaluate(
            ROWS,
            ["faithfulness"],
            "openai/m",
            config=RunConfig(base_url=server.base_url),
            out=out,
            retry_errors=True,
        )
    assert [r.status for r in first.results] == [Status.SCORED, Status.JUDGE_ERROR, Status.SCORED]
    assert [r.status for r in again.results] == [Status.SCORED] * 3
    with pytest.raises(ValueError, match="retry_errors needs out"):
        await aevaluate(ROWS, ["faithfulness"], "offline", retry_errors=True)


async def test_a_resumed_runs_progress_starts_at_the_results_it_keeps(tmp_path: Path) -> None:
    from veracity.store import results_done

    out = tmp_path / "run"
    assert results_done(out, ["faithfulness"], 1) == 0  # nothing there yet
    with FakeLLMServer(responder=refusing("Hamlet")) as server:
        await aevaluate(
            ROWS, ["faithfulness"], "openai/m", config=RunConfig(base_url=server.base_url), out=out
        )
    assert results_done(out, ["faithfulness"], 1) == 3
    # --retry-errors asks again for the judge error: two results stay done.
    assert results_done(out, ["faithfulness"], 1, redo_errors=True) == 2
    # Metrics or iterations the run did not have are still to do.
    assert results_done(out, ["context_recall"], 1) == 0
    assert results_done(out, ["faithfulness", "context_recall"], 2) == 3
