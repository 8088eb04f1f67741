"""Speed and memory of the local models: the offline judge, and the local embedder in an
LLM-judge run.

Each scenario runs in a child process of its own (its peak RSS is its own, and a model
load or import is paid as a user pays it):

- ``synthetic``: faithfulness with the offline judge on ``--samples`` synthetic samples
  (three short contexts each), into a run directory; samples per second once the model
  is loaded, CPU seconds per sample, peak RSS. Cold: the judge's embedder keeps no
  vectors between calls (``LocalEmbedder(cache_size=0)``; a text asked for by two
  samples of one merged batch is still embedded once), in a fresh process, so nothing is
  carried over from an earlier run; ``--warm`` gives the embedder its default LRU cache;
- ``wice_dev``: the same on every row of ``wice_dev.jsonl`` (contexts of ~4,400
  characters), read in place from ``--data``;
- ``one_sample``: ``veracity run`` on a one-sample file, faithfulness, offline judge:
  seconds from starting the process to its exit, everything included;
- ``llm_local`` / ``llm_endpoint``: the four RAG metrics on 200 synthetic samples with an
  LLM judge on the fake server (300 ms a call, 16 at once), embeddings from the local
  all-MiniLM-L6-v2 or from the fake server's endpoint; ``--rounds`` of each, alternated,
  and the ratio of their median wall times.

The machine's 1-minute load average is recorded before and after each scenario: on a
shared machine, figures taken under load are not throughput figures.

Run:  python benchmarks/offline_speed.py [--data DIR] [--samples 2000] [--rounds 3]
      [--only synthetic wice_dev ...] [--warm] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from offline_data import DEFAULT_DATA, load_set
from veracity.config import RunConfig

SCENARIOS = ("synthetic", "wice_dev", "one_sample", "llm_local", "llm_endpoint")
GOALS = {"synthetic": 100.0, "wice_dev": 20.0}  # samples per second, cold
ONE_SAMPLE_GOAL_S = 5.0
RSS_GOAL_MIB = 800.0
LOCAL_OVER_ENDPOINT_GOAL = 1.10
FOUR = ["faithfulness", "context_precision", "context_recall", "answer_relevance"]
# The command line, from this interpreter (and PYTHONPATH): what ``veracity`` runs.
CLI = "import sys; from veracity.cli import main; sys.exit(main())"


def _peak_rss_mib(who: int = resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


def _process_cpu_s(pid: int | None) -> float:
    """CPU seconds (user and system) of a running process of ours (Linux's /proc)."""
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _process_peak_rss_mib(pid: int | None) -> float:
    """A running process's peak RSS (VmHWM), 0 for none."""
    if pid is None:
        return 0.0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def _offline(
    samples: list[dict[str, Any]], *, warm: bool, in_process: bool
) -> dict[str, Any]:
    from veracity import aevaluate
    from veracity.embeddings import LocalEmbedder
    from veracity.judges.offline import OfflineJudge

    # Cold: no vectors kept between calls; warm: the default LRU.
    embedder = (
        LocalEmbedder(in_process=in_process)
        if warm
        else LocalEmbedder(cache_size=0, in_process=in_process)
    )
    judge = OfflineJudge(embedder)
    started = time.perf_counter()
    await judge.embed(["warm up"])  # load the model outside the timing
    load_s = time.perf_counter() - started
    pid = embedder.model_pid  # the model's own process, if it has one
    with tempfile.TemporaryDirectory() as out:
        cpu, started = time.process_time(), time.perf_counter()
        model_cpu = _process_cpu_s(pid)
        result = await aevaluate(
            samples, ["faithfulness"], judge, config=RunConfig(cache=False), out=out
        )
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        model_cpu = _process_cpu_s(pid) - model_cpu
    model_rss = _process_peak_rss_mib(pid)
    await embedder.aclose()
    assert len(result.results) == len(samples)
    parent_rss = _peak_rss_mib()
    return {
        "samples": len(samples),
        "embedder_cache": "lru" if warm else "off",
        "embedder_cache_hits": embedder.cache_hits,
        "encode_calls": embedder.encode_calls,
        "model_load_s": round(load_s, 2),
        "wall_s": round(wall, 2),
        "samples_per_s": round(len(samples) / wall, 1),
        "cpu_s_per_sample": round((cpu + model_cpu) / len(samples), 4),
        "judge_cpu_s": round(cpu, 2),
        "model_process_cpu_s": round(model_cpu, 2),
        "cores_busy": round((cpu + model_cpu) / wall, 2),
        "judge_peak_rss_mib": round(parent_rss),
        "model_process_peak_rss_mib": round(model_rss),
        "peak_rss_mib": round(parent_rss + model_rss),
        "torch_in_judge_process": "torch" in sys.modules,
    }


def _synthetic(count: int) -> list[dict[str, Any]]:
    from veracity.testing import synthetic_samples

    return [s.model_dump(mode="json") for s in synthetic_samples(count, seed=7)]


def _one_sample() -> dict[str, Any]:
    """``veracity run`` as a child of this process (its only one: the peak RSS is its)."""
    with tempfile.TemporaryDirectory() as tmp:
        dataset = Path(tmp) / "one.jsonl"
        dataset.write_text(json.dumps(_synthetic(1)[0]) + "\n", encoding="utf-8")
        command = [sys.executable, "-c", CLI, "run", str(dataset), "--metrics", "faithfulness",
                   "--judge", "offline", "--out", str(Path(tmp) / "run")]  # fmt: skip
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"veracity run failed ({done.returncode}): {done.stderr[-2000:]}")
    return {"samples": 1, "wall_s": round(wall, 2),
            "peak_rss_mib": round(_peak_rss_mib(resource.RUSAGE_CHILDREN))}  # fmt: skip


def _llm(embedder: str) -> dict[str, Any]:
    from fake_server_run import run_against_fake_server

    cpu = time.process_time()
    row = run_against_fake_server("four metrics", FOUR, samples=200, concurrency=16,
                                  latency_s=0.3, embedder=embedder)  # fmt: skip
    return {
        "samples": 200,
        "embedder": embedder,
        "wall_s": row["wall_s"],
        "bound_s": row["bound_s"],
        "client_and_server_cpu_s": round(time.process_time() - cpu, 1),
        "max_concurrent_requests": row["max_concurrent_requests"],
        "peak_rss_mib": round(_peak_rss_mib()),
    }


def child(name: str, args: argparse.Namespace) -> dict[str, Any]:
    if name == "synthetic":
        return asyncio.run(
            _offline(_synthetic(args.samples), warm=args.warm, in_process=args.in_process)
        )
    if name == "wice_dev":
        rows = load_set(args.data, "wice_dev")
        samples = [{"id": r.id, "question": r.question, "contexts": list(r.contexts),
                    "answer": r.answer} for r in rows]  # fmt: skip
        return asyncio.run(_offline(samples, warm=args.warm, in_process=args.in_process))
    if name == "one_sample":
        return _one_sample()
    return _llm("local" if name == "llm_local" else "openai/fake-embedding")


def run_child(name: str, args: argparse.Namespace) -> dict[str, Any]:
    before = os.getloadavg()[0]
    command = [sys.executable, __file__, "--child", name, "--data", str(args.data),
               "--samples", str(args.samples), *(["--warm"] if args.warm else []),
               *(["--in-process"] if args.in_process else [])]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{name} failed ({done.returncode}): {done.stderr[-2000:]}")
    row: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    row = {"scenario": name, **row, "load_before": before, "load_after": os.getloadavg()[0]}
    print(json.dumps(row), flush=True)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--samples", type=int, default=2000, help="synthetic samples")
    parser.add_argument("--rounds", type=int, default=3, help="of each LLM-judge run")
    parser.add_argument("--only", nargs="+", choices=SCENARIOS, default=list(SCENARIOS))
    parser.add_argument("--warm", action="store_true", help="keep the embedder's LRU cache")
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="the model in the judge's process, not a process of its own",
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--child", choices=SCENARIOS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args)))
        return 0

    print(f"{os.cpu_count()} cores; 1-minute load average {os.getloadavg()[0]:.1f}", flush=True)
    rows: dict[str, list[dict[str, Any]]] = {}
    for name in (s for s in args.only if not s.startswith("llm_")):
        rows[name] = [run_child(name, args)]
    llm = [s for s in args.only if s.startswith("llm_")]
    for _ in range(args.rounds if llm else 0):
        for name in llm:
            rows.setdefault(name, []).append(run_child(name, args))

    checks: dict[str, bool] = {}
    for name, goal in GOALS.items():
        if name in rows:
            rate = rows[name][0]["samples_per_s"]
            checks[f"{name}: {rate} samples/s >= {goal}"] = rate >= goal
    if "one_sample" in rows:
        wall = rows["one_sample"][0]["wall_s"]
        checks[f"one-sample run: {wall} s <= {ONE_SAMPLE_GOAL_S}"] = wall <= ONE_SAMPLE_GOAL_S
    for name, runs in rows.items():
        peak = max(r["peak_rss_mib"] for r in runs)
        checks[f"{name}: peak RSS {peak} MiB <= {RSS_GOAL_MIB:.0f}"] = peak <= RSS_GOAL_MIB
    if len(llm) == 2:
        local = statistics.median(r["wall_s"] for r in rows["llm_local"])
        endpoint = statistics.median(r["wall_s"] for r in rows["llm_endpoint"])
        ratio = round(local / endpoint, 3)
        check = (f"LLM run, local embedder / endpoint (median wall {local} s / {endpoint} s): "
                 f"{ratio} <= {LOCAL_OVER_ENDPOINT_GOAL}")  # fmt: skip
        checks[check] = ratio <= LOCAL_OVER_ENDPOINT_GOAL
    for check, ok in checks.items():
        print(f"{'PASS' if ok else 'FAIL'}  {check}")
    if args.json:
        args.json.write_text(json.dumps({"runs": rows, "checks": checks}, indent=1) + "\n")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
