"""The four RAG metrics together against the fake server: calls per sample and wall time.

faithfulness + context_precision + context_recall + answer_relevance on synthetic samples
(3 contexts each, a reference each), every call to the fake OpenAI-compatible server taking
``--latency`` seconds, embeddings from its embeddings endpoint (same latency) unless
``--embedder local``. Checks: at most 5 judge calls per sample (ragas needs 7 for the
same four), wall time within 1.15 × chat calls × latency / concurrency, and embedding
requests overlapping (they run on their own concurrency limit, never one at a time).
A second run adds ragas_score to show the composite costs no call of its own.

Run:  python benchmarks/rag_metrics_fake_server.py [--samples 200] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from fake_server_run import run_against_fake_server

FOUR = ["faithfulness", "context_precision", "context_recall", "answer_relevance"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--embedder", default="openai/fake-embedding",
                        help="openai/MODEL (the fake server's endpoint) or local")  # fmt: skip
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)

    common = {
        "samples": args.samples,
        "concurrency": args.concurrency,
        "latency_s": args.latency,
        "embedder": args.embedder,
    }
    four = run_against_fake_server("four metrics", FOUR, **common)
    with_ragas = run_against_fake_server(
        "four metrics + ragas_score",
        [*FOUR, "ragas_score"],
        **common,
    )
    rows = [four, with_ragas]
    for row in rows:
        print(json.dumps(row))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")

    errors = sum(v for k, v in four["statuses"].items() if k.endswith(":judge_error"))
    checks = {
        "at most 5 judge calls per sample": four["max_calls_for_a_sample"] <= 5,
        "wall time within 1.15 x bound": four["wall_over_bound"] <= 1.15,
        "ragas_score adds no call": with_ragas["completions"] == four["completions"],
        "no judge_error": errors == 0,
        "no NaN in any output": not any(r["nan_in_outputs"] for r in rows),
    }
    if args.embedder.startswith("openai/"):
        checks["embedding requests overlap"] = four["embedding_requests"] > 0 and (
            four["max_concurrent_requests"] > args.concurrency
        )
    for check, ok in checks.items():
        print(f"{'PASS' if ok else 'FAIL'}  {check}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
