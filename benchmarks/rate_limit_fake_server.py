"""A rate-limited endpoint: ``--rpm`` at the limit, 429s past it, every sample scored.

The fake server allows ``--server-rps`` requests a second (a token bucket, HTTP 429 with
Retry-After beyond it); veracity runs with ``--rpm`` = the same rate. Checks: every
sample scored, and the wall time within 1.15 × calls / rate. A second run without
``--rpm`` shows the adaptive limiter alone (429s, waits, still every sample scored).

Run:  python benchmarks/rate_limit_fake_server.py [--samples 200] [--server-rps 10]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from veracity import LLMJudge, OpenAIChat, evaluate
from veracity.config import RunConfig
from veracity.testing import FakeLLMServer, Faults, synthetic_samples
from veracity.transport import RetryPolicy


def run(samples: int, server_rps: float, rpm: float | None) -> dict[str, object]:
    data = synthetic_samples(samples, seed=7)
    faults = Faults(rate_limit_rps=server_rps)  # a burst of one second, like a per-minute budget
    with FakeLLMServer(faults=faults, record_requests=False) as server:
        chat = OpenAIChat("fake", base_url=server.base_url, api_key="k", concurrency=16,
                          rpm=rpm, retry=RetryPolicy(max_attempts=10))  # fmt: skip
        started = time.perf_counter()
        result = evaluate(data, ["faithfulness"], LLMJudge(chat), config=RunConfig(cache=False))
        wall = time.perf_counter() - started
        stats = server.stats
    statuses = result.summary["metrics"]["faithfulness"]["overall"]["counts_by_status"]
    floor = stats.completions / server_rps
    return {
        "rpm": rpm,
        "server_rps": server_rps,
        "completions": stats.completions,
        "http_429": stats.by_status.get(429, 0),
        "scored": statuses["scored"] + statuses["no_claims"],
        "samples": samples,
        "wall_s": round(wall, 2),
        "calls_over_rate_s": round(floor, 2),
        "wall_over_floor": round(wall / floor, 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--server-rps", type=float, default=10.0)
    args = parser.parse_args(argv)
    with_rpm = run(args.samples, args.server_rps, rpm=args.server_rps * 60)
    adaptive = run(args.samples, args.server_rps, rpm=None)
    for row in (with_rpm, adaptive):
        print(json.dumps(row))
    checks = {
        "rpm: every sample scored": with_rpm["scored"] == args.samples,
        "rpm: wall within 1.15 x calls / rate": float(str(with_rpm["wall_over_floor"])) <= 1.15,
        "adaptive: every sample scored": adaptive["scored"] == args.samples,
    }
    for check, ok in checks.items():
        print(f"{'PASS' if ok else 'FAIL'}  {check}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
