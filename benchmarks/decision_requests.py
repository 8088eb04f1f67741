"""Decision judges: requests per sample against the fake decision server (issue 49's goal:
faithfulness at most 1 request a sample, the four RAG metrics at most 2).

Both wire formats (``systemone/…``, ``openai-decisions/…``), each on the bundled example
and on ``--samples`` synthetic samples (3 contexts each), every request taking
``--latency`` seconds, ``--concurrency`` in flight: faithfulness alone; the four RAG
metrics; all seven judged metrics; and the hybrid, a chat judge drawing the claims (the
fake OpenAI-compatible server's). Per run: requests and questions the server answered,
requests a sample, statuses, wall time. No embedder, so answer relevance rates directly,
as it does with any decision judge (it writes no questions).

Run:  python benchmarks/decision_requests.py [--samples 200] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from importlib.resources import as_file, files
from pathlib import Path
from typing import Any

from veracity import evaluate
from veracity.config import RunConfig
from veracity.judges import make_judge
from veracity.testing import FakeLLMServer, synthetic_samples
from veracity.testing.decision_server import FakeDecisionServer

FAITHFULNESS = ["faithfulness"]
FOUR = ["faithfulness", "context_precision", "context_recall", "answer_relevance"]
SEVEN = [*FOUR, "factual_accuracy", "answer_classification", "rubric"]
GOALS = {"faithfulness": 1, "four": 2}


def _run(
    label: str,
    data: Any,
    metrics: list[str],
    spec: str,
    *,
    concurrency: int,
    latency_s: float,
    hybrid: bool = False,
) -> dict[str, Any]:
    with FakeDecisionServer(latency_s=latency_s) as server, FakeLLMServer() as chat:
        judge = make_judge(
            spec,
            base_url=server.base_url,
            concurrency=concurrency,
            claims_judge="openai/fake" if hybrid else None,
            claims_base_url=chat.base_url if hybrid else None,
        )
        started = time.perf_counter()
        result = evaluate(
            data,
            metrics,
            judge,
            config=RunConfig(embedder="none", cache=False, concurrency=concurrency),
            progress=False,
        )
        wall = time.perf_counter() - started
        stats = server.stats
    samples = len({(r.sample_id, r.system) for r in result.results})
    statuses = Counter(f"{r.metric}:{r.status.value}" for r in result.results)
    return {
        "run": label,
        "judge": spec,
        "metrics": metrics,
        "samples": samples,
        "requests": stats.decisions,
        "requests_per_sample": round(stats.decisions / samples, 3),
        "questions": stats.questions,
        "refusals": stats.refusals,
        "statuses": dict(sorted(statuses.items())),
        "wall_s": round(wall, 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    os.environ.setdefault("OPENAI_API_KEY", "sk-fake")  # the fakes take any key
    options = {"concurrency": args.concurrency, "latency_s": args.latency}
    rows = []
    with as_file(files("veracity") / "examples" / "rag_sample.jsonl") as example:
        synthetic = synthetic_samples(args.samples)
        for spec in ("systemone/fake-decider", "openai-decisions/gpt-6-luna"):
            for name, data in (("example", str(example)), ("synthetic", synthetic)):
                for which, metrics in (("faithfulness", FAITHFULNESS), ("four", FOUR)):
                    rows.append(_run(f"{name} {which}", data, metrics, spec, **options))
                rows.append(_run(f"{name} seven", data, SEVEN, spec, **options))
            rows.append(
                _run("synthetic four, hybrid", synthetic, FOUR, spec, hybrid=True, **options)
            )
    for row in rows:
        print(json.dumps(row))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    checks = {
        f"{row['run']} ({row['judge']}): at most {GOALS[goal]} request(s) a sample": (
            row["requests_per_sample"] <= GOALS[goal]
        )
        for row in rows
        if (goal := row["run"].split(" ")[1].rstrip(",")) in GOALS
    }
    checks["no judge_error"] = not any(
        k.endswith(":judge_error") for row in rows for k in row["statuses"]
    )
    for check, ok in checks.items():
        print(f"{'PASS' if ok else 'FAIL'}  {check}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
