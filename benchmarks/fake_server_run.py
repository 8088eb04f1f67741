"""One ``veracity.evaluate`` run against the fake OpenAI-compatible server, measured.

Shared by the benchmark scripts; run one of those, not this module.
"""

from __future__ import annotations

import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from veracity import LLMJudge, OpenAIChat, evaluate
from veracity.embeddings import make_embedder
from veracity.testing import FakeLLMServer, Faults, synthetic_samples
from veracity.transport import RetryPolicy


def run_against_fake_server(
    name: str,
    metrics: Sequence[str],
    *,
    samples: int,
    concurrency: int,
    latency_s: float = 0.0,
    faults: Faults | None = None,
    embedder: str | None = None,
) -> dict[str, Any]:
    """Evaluate ``samples`` synthetic samples; figures of calls, time, statuses, NaN."""
    data = synthetic_samples(samples, seed=7)
    with FakeLLMServer(latency_s=latency_s, faults=faults or Faults(), seed=11) as server:
        chat = OpenAIChat(
            "fake-judge",
            base_url=server.base_url,
            api_key="benchmark",
            concurrency=concurrency,
            retry=RetryPolicy(max_attempts=10),
        )
        the_embedder = make_embedder(
            embedder, base_url=server.base_url, concurrency=concurrency
        ) if embedder else None  # fmt: skip
        with tempfile.TemporaryDirectory() as out:
            started = time.perf_counter()
            result = evaluate(
                data, list(metrics), LLMJudge(chat), out=out, embedder=the_embedder,
                bert_scorer=None,
            )  # fmt: skip
            wall = time.perf_counter() - started
            files = {
                p.name: p.read_text()
                for p in Path(out).iterdir()
                if p.suffix in {".json", ".jsonl"}
            }  # the SQLite store is binary
        stats = server.stats
    per_sample: Counter[str] = Counter()
    for record in result.results:
        per_sample[record.sample_id] += record.usage.calls
    completions = stats.completions
    bound = completions * latency_s / concurrency
    rps = faults.rate_limit_rps if faults and faults.rate_limit_rps else None
    burst = max(1.0, rps) if rps else 0.0
    errors = [r for r in result.results if r.status.value == "judge_error"]
    return {
        "scenario": name,
        "metrics": list(metrics),
        "samples": samples,
        "concurrency": concurrency,
        "latency_s": latency_s,
        "http_requests": stats.requests,
        "completions": completions,
        "embedding_requests": stats.embeddings,
        "calls_per_sample": completions / samples,
        "max_calls_for_a_sample": max(per_sample.values()),
        "max_concurrent_requests": stats.max_concurrent,
        "wall_s": round(wall, 3),
        "bound_s": round(bound, 3),
        "wall_over_bound": round(wall / bound, 3) if bound else None,
        # With a rate limit, the floor is the calls past the first burst at the allowed rate.
        "rate_bound_s": round((completions - burst) / rps, 3) if rps else None,
        "statuses": dict(Counter(f"{r.metric}:{r.status.value}" for r in result.results)),
        "judge_error_rate": len(errors) / len(result.results),
        "judge_errors_with_reason_and_raw": all(
            r.reason and r.details.get("raw_replies") for r in errors
        ),
        "faults": dict(stats.faults),
        "http_status": {str(k): v for k, v in stats.by_status.items()},
        "nan_in_outputs": any("NaN" in text for text in files.values()),
        "means": {m: s["overall"]["mean"] for m, s in result.summary["metrics"].items()},
    }
