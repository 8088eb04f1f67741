"""The ray executor on a local Ray instance (2 CPUs, so 2 workers), started once for the
module: the same results as the local executor, the cache and the rate limit shared by
the workers, a killed worker's batches scored again, a killed driver's run resumed."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from veracity import aevaluate, evaluate
from veracity.config import RunConfig
from veracity.decisions import ServerLimits
from veracity.evaluation import EvaluationResult
from veracity.judges import JudgeFatalError
from veracity.testing import (
    ChatRequest,
    FakeDecisionServer,
    FakeLLMServer,
    RuleBasedResponder,
    synthetic_samples,
)
from veracity.types import ResultRecord, Sample

if importlib.util.find_spec("ray") is None and not os.environ.get("CI"):
    # CI installs the ray extra: there a missing Ray fails the import below instead.
    pytest.skip("needs Ray: pip install 'veracity[ray]'", allow_module_level=True)

import ray
from ray.exceptions import RayActorError

from veracity.runner import release_ray_workers
from veracity.runner.ray_shared import LimiterActor

# One worker runs them all when the suite is spread over several (pytest -n): one local
# Ray instance at a time.
pytestmark = [pytest.mark.ray, pytest.mark.xdist_group("ray")]

LLM_METRICS = ["faithfulness", "context_precision", "context_recall", "factual_accuracy"]
OFFLINE_METRICS = ["faithfulness", "context_precision", "semantic_similarity"]


@pytest.fixture(scope="module", autouse=True)
def cluster() -> Iterator[str]:
    """One local Ray instance for the module; its address, for a second driver."""
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.ERROR)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def samples() -> list[Sample]:
    return synthetic_samples(12, seed=3)


def by_key(result: EvaluationResult) -> dict[tuple[str, str, int], ResultRecord]:
    return {(r.sample_id, r.metric, r.iteration): r for r in result.results}


def comparable(record: ResultRecord) -> dict[str, Any]:
    """A result without what timing decides (latency; a reply served from the cache)."""
    return record.model_dump(exclude={"latency_s", "usage", "cost_usd"})


def stored(run_dir: Path) -> list[tuple[str, str, int]]:
    lines = (run_dir / "results.jsonl").read_text().splitlines()
    return [(r["sample_id"], r["metric"], r["iteration"]) for r in map(json.loads, lines)]


def test_an_llm_judged_run_on_ray_equals_the_local_run_and_a_rerun_makes_no_call(
    tmp_path: Path, samples: list[Sample]
) -> None:
    # An endpoint without json_schema: the judge steps down, on every worker.
    with FakeLLMServer(supports_json_schema=False) as server:
        config = RunConfig(base_url=server.base_url, iterations=2)
        local = evaluate(
            samples, LLM_METRICS, "openai/m", config=config.overridden({"cache": False})
        )
        calls = server.stats.completions
        ray_config = config.overridden({"executor": "ray"})
        on_ray = evaluate(samples, LLM_METRICS, "openai/m", config=ray_config, out=tmp_path / "a")
        assert server.stats.completions == 2 * calls  # the same calls, none repeated
        again = evaluate(samples, LLM_METRICS, "openai/m", config=ray_config, out=tmp_path / "b")
        assert server.stats.completions == 2 * calls  # every reply came from the cache
    expected = {key: comparable(r) for key, r in by_key(local).items()}
    assert len(expected) == len(samples) * len(LLM_METRICS) * 2
    assert {key: comparable(r) for key, r in by_key(on_ray).items()} == expected
    assert {key: comparable(r) for key, r in by_key(again).items()} == expected
    # Usage too: the ray run's replies were paid for, the re-run's all came cached.
    assert sum(r.usage.cached_calls for r in again.results) > 0
    assert on_ray.summary["metrics"] == local.summary["metrics"]
    assert sorted(stored(tmp_path / "a")) == sorted(expected)  # each result stored once
    assert on_ray.manifest["settings"]["executor"] == "ray"
    # run.json describes the judge as the workers left it.
    assert on_ray.manifest["judge"]["structured_output"] == "json_object_schema"
    assert on_ray.manifest["judge"]["negotiation"] == local.manifest["judge"]["negotiation"]


def test_a_decision_judged_run_on_ray_equals_the_local_run_and_learns_the_servers_limit(
    tmp_path: Path, samples: list[Sample]
) -> None:
    metrics = ["faithfulness", "context_precision", "context_recall", "answer_relevance"]
    # A server that takes 2 questions a request, which the judge does not know: it learns.
    with FakeDecisionServer(limits=ServerLimits(max_questions=2, max_options=26)) as server:
        local = evaluate(
            samples,
            metrics,
            "systemone/fake",
            config=RunConfig(base_url=server.base_url, cache=False),
        )
        ray_config = RunConfig(base_url=server.base_url, executor="ray")
        on_ray = evaluate(samples, metrics, "systemone/fake", config=ray_config, out=tmp_path / "a")
        asked = server.stats.decisions
        again = evaluate(samples, metrics, "systemone/fake", config=ray_config, out=tmp_path / "b")
        assert server.stats.decisions == asked  # every answer came from the cache
    expected = {key: comparable(r) for key, r in by_key(local).items()}
    assert len(expected) == len(samples) * len(metrics)
    assert {key: comparable(r) for key, r in by_key(on_ray).items()} == expected
    assert {key: comparable(r) for key, r in by_key(again).items()} == expected
    # run.json describes the judge as the workers left it: the limit they learnt.
    learnt = on_ray.manifest["judge"]["limits"]["max_questions"]
    assert learnt == local.manifest["judge"]["limits"]["max_questions"] == 2


def test_an_offline_judged_run_on_ray_equals_the_local_run(
    tmp_path: Path, samples: list[Sample]
) -> None:
    local = by_key(evaluate(samples, OFFLINE_METRICS, "offline"))
    on_ray = by_key(evaluate(samples, OFFLINE_METRICS, "offline", config=RunConfig(executor="ray")))
    assert on_ray.keys() == local.keys()
    for key, record in local.items():
        theirs = on_ray[key]
        assert (theirs.status, theirs.reason) == (record.status, record.reason), key
        # Equal up to the float rounding of the embedding model, which varies with the
        # batch a text is embedded in (locally too).
        assert theirs.score == pytest.approx(record.score, abs=1e-5), key


class Arrivals:
    """The rule-based replies, noting when each request arrived."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self._lock = threading.Lock()
        self._reply = RuleBasedResponder()

    def __call__(self, request: ChatRequest) -> str:
        with self._lock:
            self.times.append(time.monotonic())
        return self._reply(request)


def test_the_rpm_limit_holds_for_the_whole_cluster(samples: list[Sample]) -> None:
    arrivals = Arrivals()
    rpm = 600.0  # a call every 0.1 s; two workers each on its own limit would make 0.05 s
    with FakeLLMServer(arrivals) as server:
        evaluate(
            samples,
            "faithfulness",
            "openai/m",
            config=RunConfig(base_url=server.base_url, rpm=rpm, concurrency=8, executor="ray"),
        )
    times = sorted(arrivals.times)
    assert len(times) == 2 * len(samples)  # claims, then verdicts, for each sample
    rate = (len(times) - 1) / (times[-1] - times[0])
    assert rate <= rpm / 60 * 1.1, f"{rate:.1f} calls a second"


def test_a_killed_worker_loses_only_its_batches_which_are_scored_again(
    tmp_path: Path, samples: list[Sample]
) -> None:
    killed: list[str] = []

    def kill_a_worker(record: ResultRecord) -> None:
        if len(killed) == 0:
            name = next(n for n in ray.util.list_named_actors() if n.startswith("veracity-worker"))
            ray.kill(ray.get_actor(name), no_restart=False)
            killed.append(name)

    with FakeLLMServer(latency_s=0.05) as server:
        config = RunConfig(base_url=server.base_url, concurrency=4)
        local = evaluate(
            samples, LLM_METRICS, "openai/m", config=config.overridden({"cache": False})
        )
        calls = server.stats.completions
        on_ray = evaluate(samples, LLM_METRICS, "openai/m",
                          config=config.overridden({"executor": "ray"}), out=tmp_path / "run",
                          on_result=kill_a_worker)  # fmt: skip
        again = server.stats.completions - calls
    assert killed
    expected = {key: comparable(r) for key, r in by_key(local).items()}
    assert {key: comparable(r) for key, r in by_key(on_ray).items()} == expected
    assert sorted(stored(tmp_path / "run")) == sorted(expected)  # nothing lost or twice
    # Only the calls of the batches in flight on the killed worker were made again: at
    # most its share of the in-flight window (2 x concurrency jobs, 4 calls a job).
    assert calls <= again <= calls + 2 * 4 * 4


def test_retry_errors_on_ray_asks_again_past_the_cache(
    tmp_path: Path, samples: list[Sample]
) -> None:
    judge = RuleBasedResponder()
    refused = samples[0].question

    def refusing(request: ChatRequest) -> str:
        return "I cannot help with that." if refused in request.first_user else judge(request)

    out = tmp_path / "run"
    with FakeLLMServer(refusing) as server:
        config = RunConfig(base_url=server.base_url, executor="ray")
        first = evaluate(samples, "faithfulness", "openai/m", config=config, out=out)
        errors = [r.sample_id for r in first.results if r.status == "judge_error"]
        assert errors == [samples[0].id]
        server.responder = judge
        calls = server.stats.completions
        again = evaluate(
            samples, "faithfulness", "openai/m", config=config, out=out, retry_errors=True
        )
        # Only the refused sample was asked again, and its refusals were not replayed
        # from the cache (the worker took them out of it before committing the error).
        assert 0 < server.stats.completions - calls <= 3
    assert {r.sample_id: r.status for r in again.results}[samples[0].id] == "scored"
    assert len(stored(tmp_path / "run")) == len(samples)


def live_workers() -> dict[str, str]:
    """The worker actors alive in the cluster (those that answer): their ids, by name."""
    alive: dict[str, str] = {}
    for name in ray.util.list_named_actors():
        if name.startswith("veracity-worker"):
            try:
                actor = ray.get_actor(name)
                ray.get(actor.alive.remote(), timeout=30)
            except (ValueError, RayActorError):  # ended since it was listed
                continue
            alive[name] = actor._actor_id.hex()
    return alive


def test_a_second_run_is_scored_by_the_first_run_s_workers_with_its_own_judge(
    samples: list[Sample],
) -> None:
    with FakeLLMServer() as first, FakeLLMServer() as second:
        evaluate(samples, "faithfulness", "openai/m",
                 config=RunConfig(base_url=first.base_url, executor="ray"))  # fmt: skip
        workers = live_workers()
        calls = first.stats.completions
        again = evaluate(samples, "faithfulness", "openai/m",
                         config=RunConfig(base_url=second.base_url, executor="ray"))  # fmt: skip
        assert live_workers() == workers and len(workers) == 2  # one a CPU, kept
        # The second run's judge asked its own server, not the first run's.
        assert first.stats.completions == calls
        assert second.stats.completions == 2 * len(samples)
    assert {r.status for r in again.results} == {"scored"}


def test_two_runs_at_once_each_finish_on_workers_of_their_own(samples: list[Sample]) -> None:
    async def both() -> list[EvaluationResult]:
        with FakeLLMServer() as server:
            config = RunConfig(base_url=server.base_url, executor="ray")
            return list(
                await asyncio.gather(
                    aevaluate(samples, "faithfulness", "openai/m", config=config),
                    aevaluate(samples[:5], "faithfulness", "openai/m", config=config),
                )
            )

    first, second = asyncio.run(both())
    assert len(first.results) == len(samples) and len(second.results) == 5
    assert {r.status for r in [*first.results, *second.results]} == {"scored"}
    # The run that ended first gave its CPUs to the other's worker; the last one's are kept.
    assert 1 <= len(live_workers()) <= 2


def test_a_kept_worker_that_died_is_replaced_and_every_sample_is_scored(
    samples: list[Sample],
) -> None:
    with FakeLLMServer() as server:
        config = RunConfig(base_url=server.base_url, executor="ray")
        evaluate(samples, "faithfulness", "openai/m", config=config)
        workers = live_workers()
        dead = next(iter(workers))
        ray.kill(ray.get_actor(dead), no_restart=True)
        deadline = time.monotonic() + 60
        while dead in live_workers():  # dead for Ray too, before the next run starts
            assert time.monotonic() < deadline
            time.sleep(0.05)
        result = evaluate(samples, "faithfulness", "openai/m", config=config)
    now = live_workers()
    # The dead one replaced by a new one, the other kept.
    assert len(now) == 2 and workers[dead] not in now.values()
    assert set(workers.values()) - {workers[dead]} < set(now.values())
    assert len(result.results) == len(samples)
    assert {r.status for r in result.results} == {"scored"}
    release_ray_workers()
    assert live_workers() == {}


def test_a_killed_driver_s_run_resumes_from_its_run_directory(
    tmp_path: Path, cluster: str, samples: list[Sample]
) -> None:
    metrics = ["faithfulness", "context_precision"]
    dataset = tmp_path / "data.jsonl"
    dataset.write_text("".join(s.model_dump_json() + "\n" for s in samples))
    out = tmp_path / "run"
    with FakeLLMServer(latency_s=0.1) as server:
        command = [sys.executable, "-m", "veracity", "run", str(dataset), "--judge",
                   "openai/m", "--base-url", server.base_url, "--out", str(out),
                   "--metrics", ",".join(metrics), "--concurrency", "2",
                   "--executor", "ray", "--ray-address", cluster]  # fmt: skip
        release_ray_workers()  # the CPUs the kept workers hold, for the second driver's
        # RAY_AUTH_MODE stays: Ray set it for this cluster, whose token a driver needs.
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("OPENAI") and k != "RAY_ADDRESS"}  # fmt: skip
        driver = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
        results = out / "results.jsonl"
        deadline = time.monotonic() + 60
        while not (results.exists() and len(results.read_text().splitlines()) >= 3):
            assert driver.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        driver.send_signal(signal.SIGKILL)
        driver.wait()
        done_before = len(stored(out))
        assert done_before < len(samples) * len(metrics)
        resumed = evaluate(
            dataset,
            metrics,
            "openai/m",
            config=RunConfig(base_url=server.base_url, concurrency=2, executor="ray"),
            out=out,
        )
    assert resumed.manifest["attempts"][-1]["results_resumed"] == done_before
    assert resumed.manifest["status"] == "completed"
    keys = stored(out)
    assert len(keys) == len(set(keys)) == len(samples) * len(metrics)


def test_a_judge_that_cannot_work_stops_the_run_with_its_own_error(
    tmp_path: Path, samples: list[Sample]
) -> None:
    with pytest.raises(JudgeFatalError, match=r"cannot connect to http://127\.0\.0\.1:9/v1"):
        evaluate(
            samples,
            "faithfulness",
            "openai/m",
            config=RunConfig(base_url="http://127.0.0.1:9/v1", executor="ray"),
            out=tmp_path / "run",
        )
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert manifest["status"] == "failed" and "cannot connect" in manifest["error"]


async def test_a_restarted_worker_frees_the_slots_its_previous_life_held() -> None:
    limiter = LimiterActor(concurrency=2, rpm=None)
    for _ in range(2):
        token, _ = await limiter.acquire("w1", "first life")
        assert token is not None
    # The first life died holding both slots, with a third call waiting for one.
    late = asyncio.create_task(limiter.acquire("w1", "first life"))
    await asyncio.sleep(0.05)
    assert not late.done()
    token, _ = await limiter.acquire("w1", "second life")  # frees the dead life's two
    assert token is not None
    assert await late == (None, False)  # granted to a life that has ended: given back
    other, _ = await limiter.acquire("w2", "its life")  # the second slot is free
    assert other is not None
    assert limiter.limiter._in_flight == 2


async def test_a_429_one_worker_gets_pauses_every_worker() -> None:
    limiter = LimiterActor(concurrency=4, rpm=None)
    token, _ = await limiter.acquire("w1", "life")
    assert token is not None
    await limiter.throttled(0.3)  # w1 was told to wait 0.3 s
    await limiter.release(token)
    started = time.monotonic()
    await limiter.acquire("w2", "life")
    assert time.monotonic() - started >= 0.25
    assert limiter.limiter.current_limit == 2  # and the concurrency halved, for all
