"""A tiny RAG pipeline instrumented for real (OpenInference's OpenAI instrumentation and
the OpenTelemetry SDK) calls veracity's fake OpenAI server and a toy retriever; its spans,
encoded as the OTLP JSON a collector's file exporter writes, read back as the sample."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("openinference.instrumentation.openai")

from google.protobuf.json_format import MessageToDict
from openai import OpenAI
from openinference.instrumentation.openai import OpenAIInstrumentor
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)

from tests.in_process import veracity
from veracity import evaluate, samples_from_traces
from veracity.judges.offline import OfflineJudge
from veracity.testing import FakeLLMServer
from veracity.testing.responders import scripted

DOCUMENTS = ["The Eiffel Tower was finished in 1889.", "Bananas are rich in potassium."]
QUESTION = "When was the Eiffel Tower finished?"
ANSWER = "The Eiffel Tower was finished in 1889."


@pytest.fixture
def traced() -> Iterator[tuple[TracerProvider, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "toy-rag"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    OpenAIInstrumentor().instrument(tracer_provider=provider)
    try:
        yield provider, exporter
    finally:
        OpenAIInstrumentor().uninstrument()
        provider.shutdown()


def _pipeline(provider: TracerProvider, base_url: str) -> None:
    """Retrieve, then ask the model with the documents in the prompt: a RAG request."""
    tracer = provider.get_tracer("toy-rag")
    with tracer.start_as_current_span("rag") as root:
        root.set_attribute("openinference.span.kind", "CHAIN")
        root.set_attribute("input.value", QUESTION)
        with tracer.start_as_current_span("retrieve") as retriever:
            retriever.set_attribute("openinference.span.kind", "RETRIEVER")
            retriever.set_attribute("input.value", QUESTION)
            for i, document in enumerate(DOCUMENTS):
                retriever.set_attribute(f"retrieval.documents.{i}.document.content", document)
        client = OpenAI(base_url=base_url, api_key="test-key", max_retries=0)
        reply = client.chat.completions.create(
            model="toy",
            messages=[
                {"role": "system", "content": "Answer from the documents."},
                {"role": "user", "content": "Tell me about the tower."},
                {"role": "assistant", "content": "It is in Paris."},
                {"role": "user", "content": "\n".join(DOCUMENTS) + f"\n\n{QUESTION}"},
            ],
        )
        client.close()
        root.set_attribute("output.value", reply.choices[0].message.content or "")


def test_an_instrumented_pipelines_otlp_json_reads_and_evaluates(
    traced: tuple[TracerProvider, InMemorySpanExporter], tmp_path: Path
) -> None:
    provider, exporter = traced
    with FakeLLMServer(scripted([ANSWER])) as server:
        _pipeline(provider, server.base_url)
    spans = exporter.get_finished_spans()
    assert any(
        s.attributes and s.attributes.get("llm.output_messages.0.message.content") for s in spans
    )
    path = tmp_path / "traces.jsonl"
    path.write_text(json.dumps(MessageToDict(encode_spans(spans))) + "\n", encoding="utf-8")

    found = samples_from_traces(path)
    (sample,) = found.samples
    assert (sample.question, sample.answer, sample.contexts) == (QUESTION, ANSWER, tuple(DOCUMENTS))
    assert [(t.role, t.content) for t in sample.history] == [
        ("user", "Tell me about the tower."),
        ("assistant", "It is in Paris."),
    ]
    assert sample.system == "toy-rag"
    result = evaluate(found.samples, ["faithfulness"], OfflineJudge(), progress=False)
    assert result.results[0].score is not None and result.results[0].score > 0.8


def test_evaluations_go_back_onto_the_spans_they_evaluate(
    traced: tuple[TracerProvider, InMemorySpanExporter], tmp_path: Path
) -> None:
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import (
        InMemoryLogRecordExporter,
        SimpleLogRecordProcessor,
    )

    from veracity.integrations.otel import emit_results

    provider, exporter = traced
    with FakeLLMServer(scripted([ANSWER])) as server:
        _pipeline(provider, server.base_url)
    spans = exporter.get_finished_spans()
    path = tmp_path / "traces.jsonl"
    path.write_text(json.dumps(MessageToDict(encode_spans(spans))) + "\n", encoding="utf-8")
    out = tmp_path / "run"
    proc = veracity("run", str(path), "--from", "otlp", "--judge",
         "offline", "--metrics", "faithfulness", "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    root = next(s for s in spans if s.name == "rag")

    logs_exporter = InMemoryLogRecordExporter()
    logs = LoggerProvider()
    logs.add_log_record_processor(SimpleLogRecordProcessor(logs_exporter))
    results = TracerProvider()
    results_exporter = InMemorySpanExporter()
    results.add_span_processor(SimpleSpanProcessor(results_exporter))
    assert emit_results(out, logger_provider=logs, tracer_provider=results) == 1
    (record,) = [data.log_record for data in logs_exporter.get_finished_logs()]
    assert (record.trace_id, record.span_id) == (root.context.trace_id, root.context.span_id)
    (evaluated,) = [s for s in results_exporter.get_finished_spans() if s.links]
    assert evaluated.links[0].context.span_id == root.context.span_id
