"""A judge that fails every call (nothing ever answered) stops the run
promptly, with the endpoint's last error and a hint that fits; calls failing for a reason
that has nothing to do with the options asked never queue behind one another."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.hostile_endpoint import FAST_RETRY, KEY, SAMPLES, HostileEndpoint, judge, results
from veracity import aevaluate
from veracity.cli.app import app
from veracity.config import RunConfig
from veracity.judges import JudgeFailingError, JudgeFatalError
from veracity.testing import FakeLLMServer, Faults
from veracity.testing.payloads import dumps, openai_completion
from veracity.transport import RetryPolicy

MANY = [{**SAMPLES[0], "id": f"m{i}"} for i in range(40)]


async def test_a_judge_failing_every_call_stops_the_run_keeping_what_was_done(
    tmp_path: Path,
) -> None:
    with FakeLLMServer(faults=Faults(status_5xx=1.0)) as server:
        with pytest.raises(JudgeFailingError) as raised:
            await aevaluate(
                MANY,
                "faithfulness",
                judge("openai", server.base_url, concurrency=4),
                config=RunConfig(embedder="none"),
                out=tmp_path / "run",
            )
        requests = server.stats.requests
    message = str(raised.value)
    assert isinstance(raised.value, JudgeFatalError)
    assert "Injected server error" in message and "failing, not busy" in message
    assert "concurrency" not in message and KEY not in message
    # Stopped after a handful of calls (those in flight: twice the concurrency), not one
    # call per sample.
    assert requests <= (FAST_RETRY.max_unanswered_calls + 2 * 4) * FAST_RETRY.max_attempts + 4
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert manifest["status"] == "failed" and "failing, not busy" in manifest["error"]
    # Nothing invented: only calls that were made and failed have a result.
    assert all(r["status"] == "judge_error" for r in results(tmp_path / "run"))
    assert len(results(tmp_path / "run")) < FAST_RETRY.max_unanswered_calls


async def test_a_judge_that_has_answered_is_not_stopped_for_failing_later() -> None:
    claims = dumps(openai_completion("m", json.dumps({"claims": ["Paris is in France."]}), 1, 1))
    served = iter(range(10**6))

    def answer(key: str) -> tuple[int, bytes]:
        if next(served) == 0:
            return 200, claims
        return 500, b'{"error": {"message": "internal error", "type": "server_error"}}'

    with HostileEndpoint(answer=answer) as endpoint:
        the_judge = judge("openai", endpoint.base_url, concurrency=2)
        result = await aevaluate(
            MANY[:10], "faithfulness", the_judge, config=RunConfig(cache=False, embedder="none")
        )
    assert len(result.results) == 10
    assert all(r.status == "judge_error" for r in result.results)


async def test_calls_failing_whatever_the_options_do_not_queue_behind_each_other() -> None:
    lock = threading.Lock()
    state = {"in_flight": 0, "most": 0}

    def answer(key: str) -> tuple[int, bytes]:
        with lock:
            state["in_flight"] += 1
            state["most"] = max(state["most"], state["in_flight"])
        time.sleep(0.2)
        with lock:
            state["in_flight"] -= 1
        return 500, b'{"error": {"message": "internal error", "type": "server_error"}}'

    retry = RetryPolicy(max_attempts=2, base_delay_s=0.01, max_delay_s=0.02)
    with HostileEndpoint(answer=answer) as endpoint:
        the_judge = judge("openai", endpoint.base_url, concurrency=4, retry=retry)
        with pytest.raises(JudgeFailingError):
            await aevaluate(
                MANY[:8], "faithfulness", the_judge, config=RunConfig(cache=False, embedder="none")
            )
    assert state["most"] >= 3


def test_the_cli_exits_3_naming_the_last_error_and_that_the_server_is_failing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("veracity.judges.factory.RetryPolicy", lambda **_: FAST_RETRY)
    dataset = tmp_path / "data.jsonl"
    dataset.write_text("".join(json.dumps(row) + "\n" for row in MANY))
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeLLMServer(faults=Faults(status_5xx=1.0)) as server:
        ran = CliRunner().invoke(
            app,
            ["run", str(dataset), "--judge", "openai/m", "--base-url", server.base_url,
             "--metrics", "faithfulness", "--out", str(tmp_path / "run")],
        )  # fmt: skip
    said = " ".join(ran.output.split())
    assert ran.exit_code == 3, said
    assert "Injected server error" in said and "failing, not busy" in said
    assert "--concurrency" not in said and KEY not in said
    assert "Traceback" not in said
