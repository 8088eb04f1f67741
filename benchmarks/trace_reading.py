"""How fast, and in how much memory, a trace file becomes samples.

Writes an OTLP JSON file (one export request a line, 50 traces a request, as a collector's
file exporter batches them) of RAG requests in OpenInference's terms: a chain, a retriever
with 5 documents of about 400 characters, an LLM call with a system prompt, two earlier
turns and the question; then reads it into samples (``veracity.samples_from_traces``) in
a fresh process, timing the read and taking the process's peak resident memory. Run at two
or more sizes, the memory a span costs shows whether reading stays flat as files grow.
The goal (issue 32): 10,000 spans in under 10 s.

Run:  python benchmarks/trace_reading.py [--spans 10000,100000]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

SPANS_A_TRACE = 3
TRACES_A_REQUEST = 50
GOAL_S = 10.0


def _attributes(values: dict[str, str]) -> list[dict[str, Any]]:
    return [{"key": k, "value": {"stringValue": v}} for k, v in values.items()]


def _trace(n: int) -> list[dict[str, Any]]:
    trace = f"{n:032x}"
    question = f"What did report {n} find about the bridge's load limits?"
    documents = {
        f"retrieval.documents.{i}.document.content": f"Passage {i} of report {n}. " + "x" * 380
        for i in range(5)
    }
    llm = {
        "openinference.span.kind": "LLM",
        "llm.input_messages.0.message.role": "system",
        "llm.input_messages.0.message.content": "Answer from the context only. " * 5,
        "llm.input_messages.1.message.role": "user",
        "llm.input_messages.1.message.content": "Which reports are there?",
        "llm.input_messages.2.message.role": "assistant",
        "llm.input_messages.2.message.content": "Reports 1 to 9, on bridges.",
        "llm.input_messages.3.message.role": "user",
        "llm.input_messages.3.message.content": question,
        "llm.output_messages.0.message.content": f"Report {n} found the limit was 40 tonnes.",
    }

    def span(span_id: str, parent: str, start: int, attributes: dict[str, str]) -> dict[str, Any]:
        return {
            "traceId": trace, "spanId": f"{n:08x}{span_id}", "parentSpanId": parent,
            "name": span_id, "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 5),
            "attributes": _attributes(attributes),
        }  # fmt: skip

    root = f"{n:08x}chain000"
    return [
        span("chain000", "", n * 10, {"openinference.span.kind": "CHAIN", "input.value": question,
             "output.value": llm["llm.output_messages.0.message.content"]}),
        span("retr0000", root, n * 10 + 1, {"openinference.span.kind": "RETRIEVER", **documents}),
        span("llm00000", root, n * 10 + 2, llm),
    ]  # fmt: skip


def write(path: Path, spans: int) -> None:
    traces = spans // SPANS_A_TRACE
    with path.open("w", encoding="utf-8") as f:
        for first in range(0, traces, TRACES_A_REQUEST):
            batch = [
                s for n in range(first, min(first + TRACES_A_REQUEST, traces)) for s in _trace(n)
            ]
            request = {
                "resourceSpans": [{
                    "resource": {"attributes": _attributes({"service.name": "rag-api"})},
                    "scopeSpans": [{"scope": {"name": "openinference"}, "spans": batch}],
                }]
            }  # fmt: skip
            f.write(json.dumps(request) + "\n")


# "list": samples_from_traces, every sample returned at once (the Python API);
# "stream": streamed_samples, each sample written out as its trace is whole (veracity run).
READ = """
import json, os, resource, sys, time
started = time.perf_counter()
from veracity.traces import TraceQuery, TraceTally, samples_from_traces, streamed_samples
if sys.argv[2] == "list":
    n = len(samples_from_traces(sys.argv[1]).samples)
else:
    with open(os.devnull, "w") as sink:
        n = 0
        for sample in streamed_samples(sys.argv[1], TraceQuery(), TraceTally()):
            sink.write(sample.model_dump_json())
            n += 1
elapsed = time.perf_counter() - started
print(json.dumps({"seconds": elapsed, "samples": n,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spans", default="10000,100000", help="Comma-separated sizes.")
    args = parser.parse_args()
    baseline = subprocess.run(
        [sys.executable, "-c", "import resource, veracity.traces, veracity.types; "
         "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)"],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    base_mb = float(baseline.stdout)
    print(
        f"{'spans':>8} {'file MB':>8} {'how':>7} {'samples':>8} {'read s':>7} {'peak MB':>8} "
        f"{'KB/span':>8}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for spans in (int(s) for s in args.spans.split(",")):
            path = Path(tmp) / f"traces-{spans}.jsonl"
            write(path, spans)
            for how in ("list", "stream"):
                done = subprocess.run(
                    [sys.executable, "-c", READ, str(path), how],
                    check=True, capture_output=True, text=True,
                )  # fmt: skip
                got = json.loads(done.stdout)
                per_span = (got["peak_rss_mb"] - base_mb) * 1024 / spans
                flag = "" if got["seconds"] < GOAL_S or spans > 10_000 else "  over the goal"
                print(
                    f"{spans:>8} {path.stat().st_size / 1e6:>8.1f} {how:>7} {got['samples']:>8} "
                    f"{got['seconds']:>7.2f} {got['peak_rss_mb']:>8.0f} {per_span:>8.1f}{flag}"
                )
    print(
        f"(a process that imports veracity's trace reading alone: {base_mb:.0f} MB;"
        f" {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB here)"
    )


if __name__ == "__main__":
    main()
