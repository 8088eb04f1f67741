"""Runs whose samples came from traces, for the ``veracity send`` tests: an OTLP JSON file
of RAG requests with real (hex) trace and span ids, evaluated by the offline judge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from veracity.cli.app import app

QUESTION = "When was the Eiffel Tower finished?"
DOCS = ["The Eiffel Tower was finished in 1889.", "It is 330 metres tall."]
ANSWERS = ["It was finished in 1889.", "It was finished in 1925 by Gustave Eiffel's son."]


def trace_id(n: int) -> str:
    return f"{0x0AF7651916CD43DD8448EB211C800000 + n:032x}"


def span_id(n: int, part: int) -> str:
    return f"{0xB7AD6B7169200000 + 16 * n + part:016x}"


def _attributes(values: dict[str, str]) -> list[dict[str, Any]]:
    return [{"key": k, "value": {"stringValue": v}} for k, v in values.items()]


def _span(n: int, part: int, start: int, attributes: dict[str, str]) -> dict[str, Any]:
    return {
        "traceId": trace_id(n), "spanId": span_id(n, part),
        "parentSpanId": "" if part == 0 else span_id(n, 0), "name": f"step {part}",
        "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 10),
        "attributes": _attributes(attributes),
    }  # fmt: skip


def rag_request(n: int, answer: str) -> list[dict[str, Any]]:
    """A RAG request as OpenInference writes it: a chain and its retriever."""
    documents = {f"retrieval.documents.{i}.document.content": d for i, d in enumerate(DOCS)}
    return [
        _span(n, 0, 100 * n, {"openinference.span.kind": "CHAIN",
              "input.value": json.dumps({"query": QUESTION}), "output.value": answer}),
        _span(n, 1, 100 * n + 1, {"openinference.span.kind": "RETRIEVER",
              "input.value": QUESTION, **documents}),
    ]  # fmt: skip


def write_traces(path: Path) -> Path:
    """One export request holding a RAG request per answer of :data:`ANSWERS`."""
    spans = [span for n, answer in enumerate(ANSWERS) for span in rag_request(n, answer)]
    request = {
        "resourceSpans": [
            {
                "resource": {"attributes": _attributes({"service.name": "rag-prod"})},
                "scopeSpans": [{"scope": {"name": "openinference"}, "spans": spans}],
            }
        ]
    }
    path.write_text(json.dumps(request) + "\n", encoding="utf-8")
    return path


def traced_run(directory: Path) -> Path:
    """A finished run (faithfulness, offline judge) of :func:`write_traces`'s samples."""
    directory.mkdir(parents=True, exist_ok=True)
    traces = write_traces(directory / "traces.jsonl")
    out = directory / "run"
    args = ["run", str(traces), "--from", "otlp", "--judge", "offline"]
    result = CliRunner().invoke(app, [*args, "--metrics", "faithfulness", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out
