"""One ``veracity.evaluate`` run against the fake OpenAI-compatible server, measured.

Shared by the benchmark scripts; run one of those, not this module.
"""

from __future__ import annotations

import importlib
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from veracity import LLMJudge, OpenAIChat, evaluate
from veracity.config import RunConfig
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
    # veracity imports the SDK at a judge's first call (its start-up stays light); a process
    # pays for it once, as start-up, not as judging: imported here, outside the timed run
    # (since 2026-11-22 the first calls of the run had waited for it), and reported apart.
    importing = time.perf_counter()
    importlib.import_module("openai")
    sdk_import_s = time.perf_counter() - importing
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
        # A response cache of the run's own: the user's shared one would serve a later run
        # whose fake server got the same port (the port is part of the cache key).
        with tempfile.TemporaryDirectory() as out, tempfile.TemporaryDirectory() as cache, \
                _InFlight(server) as in_flight:  # fmt: skip
            started, cpu, own_cpu = time.perf_counter(), time.process_time(), time.thread_time()
            result = evaluate(
                data,
                list(metrics),
                LLMJudge(chat),
                config=RunConfig(
                    embedder=the_embedder or "none",
                    bert_scorer=None,
                    cache=Path(cache) / "responses.sqlite3",
                ),
                out=out,
            )
            wall = time.perf_counter() - started
            cpu, own_cpu = time.process_time() - cpu, time.thread_time() - own_cpu
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
        # CPU seconds per result: the whole process (the fake server's thread included),
        # and the thread running the evaluation (veracity's own work).
        "cpu_ms_per_result": round(1000 * cpu / len(result.results), 2),
        "own_cpu_ms_per_result": round(1000 * own_cpu / len(result.results), 2),
        # Requests the server was handling, sampled every 10 ms between the first request
        # and the last reply; and the time before the first request (start-up: the SDK's
        # import, the run directory) and after the last reply (summary, output files).
        **in_flight.figures(started, started + wall),
        "sdk_import_s": round(sdk_import_s, 2),
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
        # How the judge's replies were read, per metric and question (strict JSON, fenced,
        # repaired, a legacy text format, or why not: refusal, unparseable, truncated…).
        "reading": {
            m: s["overall"].get("reading") or {} for m, s in result.summary["metrics"].items()
        },
        # Which mangling each malformed reply got (faults has their total).
        "manglings": dict(stats.manglings),
    }


class _InFlight:
    """Samples the fake server's requests in flight every 10 ms, on a thread of its own."""

    def __init__(self, server: FakeLLMServer) -> None:
        self.server = server
        self.samples: list[tuple[float, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(0.01):
            self.samples.append((time.perf_counter(), self.server.stats.in_flight))

    def __enter__(self) -> _InFlight:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def figures(self, started: float, ended: float) -> dict[str, float | None]:
        busy = [t for t, n in self.samples if n]
        if not busy:
            return {"mean_in_flight": None, "before_first_call_s": None, "after_last_call_s": None}
        judging = [n for t, n in self.samples if busy[0] <= t <= busy[-1]]
        return {
            "mean_in_flight": round(sum(judging) / len(judging), 2),
            "before_first_call_s": round(busy[0] - started, 2),
            "after_last_call_s": round(ended - busy[-1], 2),
        }
