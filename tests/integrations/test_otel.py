"""OpenTelemetry events through the real SDK, into its in-memory exporters."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")

from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.helpers import claims_reply, verdicts_reply
from tests.report.ci_runs import result, write_run
from veracity import LLMJudge, ScriptedChat, evaluate
from veracity.integrations.otel import EVENT, emit_results


def loggers() -> tuple[LoggerProvider, InMemoryLogRecordExporter]:
    exporter = InMemoryLogRecordExporter()
    provider = LoggerProvider()
    provider.add_log_record_processor(SimpleLogRecordProcessor(exporter))
    return provider, exporter


def tracers() -> tuple[TracerProvider, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def test_one_log_event_per_result_with_the_semantic_convention_attributes() -> None:
    provider, exporter = loggers()
    assert emit_results(result(), logger_provider=provider) == 12
    logs = [data.log_record for data in exporter.get_finished_logs()]
    assert len(logs) == 12
    assert {log.event_name for log in logs} == {EVENT}
    by_key = {
        (a["gen_ai.evaluation.name"], a["veracity.sample_id"], a.get("veracity.system")): a
        for a in (dict(log.attributes or {}) for log in logs)
    }
    failed = by_key["faithfulness", "s3", "base"]
    assert failed["gen_ai.evaluation.score.value"] == 0.5
    assert failed["gen_ai.evaluation.score.label"] == "fail"  # below the run's 0.7
    explanation = failed["gen_ai.evaluation.explanation"]
    assert isinstance(explanation, str) and explanation.startswith("1 of 2 supported")
    assert failed["veracity.iteration"] == 0
    passed = by_key["faithfulness", "s1", "rerank"]
    assert passed["gen_ai.evaluation.score.label"] == "pass"
    error = by_key["faithfulness", "s4", "base"]
    assert "gen_ai.evaluation.score.value" not in error
    assert error["gen_ai.evaluation.score.label"] == "judge_error"
    assert error["error.type"] == "judge_error"
    assert error["gen_ai.evaluation.explanation"] == "HTTP 503 after 8 attempts"
    missing = by_key["context_recall", "s2", "base"]
    assert missing["gen_ai.evaluation.score.label"] == "missing_reference"
    assert "error.type" not in missing


def test_spans_hold_the_events_and_the_logs_point_at_them(tmp_path: Path) -> None:
    # From a run directory this time, with a threshold on top for the labels.
    write_run(tmp_path / "run")
    span_provider, spans = tracers()
    log_provider, logs = loggers()
    emitted = emit_results(
        tmp_path / "run",
        tracer_provider=span_provider,
        logger_provider=log_provider,
        thresholds={"faithfulness": 0.95},
    )
    assert emitted == 12
    finished = spans.get_finished_spans()
    (root,) = [s for s in finished if s.name == "veracity evaluation"]
    children = [s for s in finished if s is not root]
    assert len(children) == 12
    assert all(s.parent is not None and s.parent.span_id == root.context.span_id for s in children)
    events = [event for span in children for event in span.events]
    assert [event.name for event in events] == [EVENT] * 12
    labels = [
        str(e.attributes["gen_ai.evaluation.score.label"])
        for e in events
        if e.attributes and e.attributes["gen_ai.evaluation.name"] == "faithfulness"
    ]
    # At 0.95 only the 1.0 scores pass: 2 pass, 4 fail, 2 judge errors.
    assert sorted(labels) == ["fail"] * 4 + ["judge_error"] * 2 + ["pass"] * 2
    span_ids = {s.context.span_id for s in children}
    log_records = [data.log_record for data in logs.get_finished_logs()]
    assert len(log_records) == 12
    assert {log.span_id for log in log_records} == span_ids


def test_a_provider_is_needed() -> None:
    with pytest.raises(ValueError, match="needs a logger_provider, a tracer_provider"):
        emit_results(result())


def test_the_result_of_evaluate_goes_straight_in() -> None:
    data = [{"id": "s1", "question": "Where?", "answer": "It is in Paris.",
             "contexts": ["The tower is in Paris."]}]  # fmt: skip
    chat = ScriptedChat(
        [
            claims_reply("It is in Paris."),
            verdicts_reply(("It is in Paris.", "supported", "stated", "The tower is in Paris.")),
        ]
    )
    evaluated = evaluate(data, ["faithfulness"], LLMJudge(chat))
    provider, exporter = loggers()
    assert emit_results(evaluated, logger_provider=provider) == 1
    (log,) = [data.log_record for data in exporter.get_finished_logs()]
    attributes = dict(log.attributes or {})
    assert attributes["gen_ai.evaluation.score.value"] == 1.0
    assert attributes["gen_ai.evaluation.score.label"] == "pass"  # the default 0.5
