"""Memory stays flat with dataset size: a long run's peak RSS, against the fake server.

Writes ``--samples`` synthetic samples to a JSONL file, runs faithfulness over it into a
run directory (results committed to SQLite, files exported at the end) against the fake
server with no latency, and reports the peak resident set size of the process (the
server's threads included) next to a run of a tenth of the size.

Run:  python benchmarks/memory_fake_server.py [--samples 100000]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from veracity.config import RunConfig

GOAL_MB = 400


def one_run(samples: int) -> dict[str, float]:
    """Runs in a child process of its own, so each peak RSS is that run's alone."""
    from veracity import LLMJudge, OpenAIChat, evaluate
    from veracity.testing import FakeLLMServer, synthetic_samples

    with tempfile.TemporaryDirectory() as tmp:
        dataset = Path(tmp) / "data.jsonl"
        with dataset.open("w") as handle:
            for start in range(0, samples, 1000):
                for sample in synthetic_samples(min(1000, samples - start), seed=start):
                    row = sample.model_dump(mode="json")
                    row["id"] = f"{row['id']}-{start}"
                    handle.write(json.dumps(row) + "\n")
        with FakeLLMServer(record_requests=False) as server:
            judge = LLMJudge(OpenAIChat("fake", base_url=server.base_url, api_key="k"))
            started = time.perf_counter()
            result = evaluate(
                dataset,
                ["faithfulness"],
                judge,
                config=RunConfig(keep_results=False, cache=Path(tmp) / "cache.sqlite3"),
                out=Path(tmp) / "run",
            )
            wall = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "samples": samples,
        "results": result.summary["results"],
        "wall_s": round(wall, 1),
        "samples_per_s": round(samples / wall, 1),
        "peak_rss_mb": round(peak_mb, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(one_run(args.child)))
        return 0
    rows = []
    for n in (args.samples // 10, args.samples):
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(n)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(json.dumps(rows[-1]))
    small, large = rows
    checks = {
        f"peak RSS under {GOAL_MB} MB": large["peak_rss_mb"] < GOAL_MB,
        "every sample has its result": large["results"] == args.samples,
        "flat: 10x the samples, under 1.5x the memory": large["peak_rss_mb"]
        < 1.5 * small["peak_rss_mb"],
    }
    for check, ok in checks.items():
        print(f"{'PASS' if ok else 'FAIL'}  {check}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
