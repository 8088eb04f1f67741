"""Faithfulness against veracity's fake OpenAI-compatible server, over real HTTP.

Three scenarios (issue 2's acceptance figures):

1. latency: every call takes ``--latency`` seconds; checks calls per sample ≤ 2 and the
   wall time against the bound calls × latency / concurrency;
2. malformed: ``--malformed`` of replies are mangled (fences, prose, trailing commas,
   single quotes, truncation, legacy text, garbage); counts statuses and judge errors and
   scans every output file for NaN;
3. rate-limit: the server allows ``--rps`` requests per second and answers 429 with
   Retry-After beyond it; checks every sample is scored.

Run:  python benchmarks/faithfulness_fake_server.py [--samples 200] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from fake_server_run import run_against_fake_server
from veracity.testing import Faults


def run_scenario(
    name: str,
    *,
    samples: int,
    concurrency: int,
    latency_s: float = 0.0,
    faults: Faults | None = None,
) -> dict[str, Any]:
    return run_against_fake_server(
        name,
        ["faithfulness"],
        samples=samples,
        concurrency=concurrency,
        latency_s=latency_s,
        faults=faults,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--malformed", type=float, default=0.10)
    parser.add_argument("--rps", type=float, default=20.0)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument(
        "--latency-only", action="store_true",
        help="run the latency scenario alone (before/after comparisons of the overhead)",
    )  # fmt: skip
    args = parser.parse_args(argv)

    latency = run_scenario(
        "latency", samples=args.samples, concurrency=args.concurrency, latency_s=args.latency
    )
    if args.latency_only:
        print(json.dumps(latency))
        if args.json:
            args.json.write_text(json.dumps([latency], indent=2) + "\n")
        ok = latency["wall_over_bound"] <= 1.15
        print(f"{'PASS' if ok else 'FAIL'}  wall time within 1.15 x bound")
        return 0 if ok else 1
    rows = [
        latency,
        run_scenario(
            "malformed",
            samples=args.samples,
            concurrency=args.concurrency,
            latency_s=args.latency,
            faults=Faults(malformed_content=args.malformed),
        ),
        run_scenario(
            "rate-limit",
            samples=args.samples,
            concurrency=args.concurrency,
            faults=Faults(rate_limit_rps=args.rps),
        ),
    ]
    for row in rows:
        print(json.dumps(row))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")

    latency, malformed, limited = rows
    checks = {
        "at most 2 calls per sample": latency["max_calls_for_a_sample"] <= 2,
        "wall time within 1.15 x bound": latency["wall_over_bound"] <= 1.15,
        "malformed: every sample has a status": sum(malformed["statuses"].values()) == args.samples,
        "malformed: judge_error at most 1 %": malformed["judge_error_rate"] <= 0.01,
        "malformed: every judge_error keeps reason and raw reply": malformed[
            "judge_errors_with_reason_and_raw"
        ],
        "no NaN in any output": not any(r["nan_in_outputs"] for r in rows),
        "rate-limit: every sample scored": limited["statuses"].get("faithfulness:scored", 0)
        + limited["statuses"].get("faithfulness:no_claims", 0)
        == args.samples,
    }
    for check, ok in checks.items():
        print(f"{'PASS' if ok else 'FAIL'}  {check}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
