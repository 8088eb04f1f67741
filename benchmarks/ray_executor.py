"""The ray executor against the local one, on this machine.

Each scenario runs in a child process of its own, with a Ray instance of its own where it
uses Ray (``ray.init(num_cpus=WORKERS)``: one worker actor per CPU):

- ``offline_local`` / ``offline_ray1`` / ``offline_ray2``: faithfulness with the offline
  judge on ``--samples`` synthetic samples, locally, then on Ray with 1 and 2 workers.
  The figures: the Ray instance's start, the run's wall time (on Ray: workers started and
  their models loaded included) and samples per second over it. What transfers to a
  cluster is Ray's overhead: the 1-worker run against the local one;
- ``llm_local`` / ``llm_ray2``: faithfulness with an LLM judge on the fake server
  (``--latency`` a call, ``--concurrency`` at once, cluster-wide on Ray), 200 samples, 2
  calls a sample: wall time against the bound calls × latency / concurrency.

The machine's 1-minute load average is recorded before each scenario: on a shared
machine, figures taken under load are not throughput figures.

Run:  python benchmarks/ray_executor.py [--samples 1000] [--latency 0.3]
      [--concurrency 16] [--only offline_local ...] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from veracity.config import RunConfig

SCENARIOS = ("offline_local", "offline_ray1", "offline_ray2", "llm_local", "llm_ray2")
LLM_SAMPLES = 200


def _samples(count: int) -> list[Any]:
    from veracity.testing import synthetic_samples

    return synthetic_samples(count, seed=7)


class _FirstResult:
    """An ``on_result`` that notes when the first result came: on Ray, the workers'
    start (and model loads) lie before it."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.at: float | None = None

    def __call__(self, record: object) -> None:
        if self.at is None:
            self.at = time.perf_counter() - self.started

    def figures(self, wall: float, samples: int) -> dict[str, Any]:
        assert self.at is not None
        return {
            "wall_s": round(wall, 2),
            "first_result_s": round(self.at, 2),
            "samples_per_s": round(samples / wall, 1),
            # After the first result: the pace once everything is up.
            "samples_per_s_after_first": round((samples - 1) / (wall - self.at), 1),
        }


def _ray(workers: int) -> float:
    """Start a local Ray instance of ``workers`` CPUs; the seconds it took."""
    import ray

    started = time.perf_counter()
    ray.init(num_cpus=workers, include_dashboard=False, logging_level=logging.ERROR)
    return round(time.perf_counter() - started, 2)


def _offline(args: argparse.Namespace, workers: int) -> dict[str, Any]:
    from veracity import evaluate

    samples = _samples(args.samples)
    row: dict[str, Any] = {"samples": len(samples), "workers": workers}
    executor = "local"
    if workers:
        row["ray_start_s"], executor = _ray(workers), "ray"
    with tempfile.TemporaryDirectory() as out:
        first = _FirstResult()
        result = evaluate(
            samples,
            "faithfulness",
            "offline",
            config=RunConfig(executor=executor, keep_results=False),
            out=out,
            on_result=first,
        )
        wall = time.perf_counter() - first.started
    assert result.summary["metrics"]["faithfulness"]["overall"]["n"] == len(samples)
    return {**row, **first.figures(wall, len(samples))}


def _llm(args: argparse.Namespace, workers: int) -> dict[str, Any]:
    from veracity import evaluate
    from veracity.testing import FakeLLMServer

    samples = _samples(LLM_SAMPLES)
    row: dict[str, Any] = {"samples": len(samples), "workers": workers}
    executor = "local"
    if workers:
        row["ray_start_s"], executor = _ray(workers), "ray"
    with FakeLLMServer(latency_s=args.latency) as server, tempfile.TemporaryDirectory() as out:
        first = _FirstResult()
        evaluate(
            samples,
            "faithfulness",
            "openai/fake",
            config=RunConfig(
                base_url=server.base_url,
                concurrency=args.concurrency,
                cache=False,
                executor=executor,
                keep_results=False,
            ),
            out=out,
            on_result=first,
        )
        wall = time.perf_counter() - first.started
        calls, peak = server.stats.completions, server.stats.max_concurrent
    bound = calls * args.latency / args.concurrency
    return {**row, **first.figures(wall, len(samples)), "calls": calls,
            "bound_s": round(bound, 2), "wall_over_bound": round(wall / bound, 2),
            "max_concurrent_requests": peak}  # fmt: skip


def child(name: str, args: argparse.Namespace) -> dict[str, Any]:
    workers = {"local": 0, "ray1": 1, "ray2": 2}[name.split("_")[1]]
    return _offline(args, workers) if name.startswith("offline") else _llm(args, workers)


def run_child(name: str, args: argparse.Namespace) -> dict[str, Any]:
    before = os.getloadavg()[0]
    command = [sys.executable, __file__, "--child", name, "--samples", str(args.samples),
               "--latency", str(args.latency), "--concurrency", str(args.concurrency)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{name} failed ({done.returncode}): {done.stderr[-2000:]}")
    row: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    row = {"scenario": name, **row, "load_before": round(before, 1)}
    print(json.dumps(row), flush=True)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1000, help="for the offline judge")
    parser.add_argument("--latency", type=float, default=0.3, help="seconds a fake call")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--only", nargs="+", choices=SCENARIOS, default=list(SCENARIOS))
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--child", choices=SCENARIOS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args)))
        return 0
    print(f"{os.cpu_count()} cores; 1-minute load average {os.getloadavg()[0]:.1f}", flush=True)
    rows = [run_child(name, args) for name in args.only]
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
