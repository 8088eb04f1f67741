"""Evaluation results as OpenTelemetry events: one ``gen_ai.evaluation.result`` per
result, with the attributes of the GenAI semantic conventions (``gen_ai.evaluation.name``,
``.score.value``, ``.score.label``, ``.explanation``, and ``error.type`` for a judge error).

Through a logger provider each event is a log record with that event name (the Logs API's
events; the separate Events API is deprecated). Through a tracer provider each result is
a span under one span for the run, holding the event; with both, the log records are
emitted inside those spans, so a backend links them. veracity.* attributes say which
sample, system and iteration a result is about.

The label is ``pass`` or ``fail`` at the metric's threshold (given, else the default the
summary's pass rates use) for a scored result, else the result's status.

A sample read from a trace (``veracity run --from otlp``) keeps the trace and span it came
from: its result span links to that span, and its log record carries that span's ids, so
the evaluation sits on the span evaluated.

Each event carries ``veracity.result_id``, the same for the same result of the same run
however often it is emitted, and each log record the run's start as its time: emitted
again, a result gives an identical record, which a backend can recognise as a repeat.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veracity._version import __version__
from veracity.report.run_data import RunData, RunLike, load_run
from veracity.types import ResultRecord, Status

if TYPE_CHECKING:
    from opentelemetry._logs import LoggerProvider
    from opentelemetry.trace import TracerProvider

EVENT = "gen_ai.evaluation.result"
NAME = "gen_ai.evaluation.name"
SCORE_VALUE = "gen_ai.evaluation.score.value"
SCORE_LABEL = "gen_ai.evaluation.score.label"
EXPLANATION = "gen_ai.evaluation.explanation"
ERROR_TYPE = "error.type"
SCOPE = "veracity"
RESULT_ID = "veracity.result_id"
_IDS = uuid.UUID("0c5f3c4e-2b8e-4a57-9a65-6f5b0e7e2d31")  # veracity's namespace for event ids


def evaluation_attributes(record: ResultRecord, threshold: float) -> dict[str, Any]:
    """The attributes of the ``gen_ai.evaluation.result`` event of ``record``."""
    attributes: dict[str, Any] = {NAME: record.metric}
    if record.score is not None:
        attributes[SCORE_VALUE] = record.score
        attributes[SCORE_LABEL] = "pass" if record.score >= threshold else "fail"
    else:
        attributes[SCORE_LABEL] = record.status.value
        if record.status is Status.JUDGE_ERROR:
            attributes[ERROR_TYPE] = record.status.value
    attributes[EXPLANATION] = record.reason
    return attributes | item_attributes(record)


def item_attributes(record: ResultRecord) -> dict[str, Any]:
    """Which result this is: sample, system, question type, iteration and status."""
    found: dict[str, Any] = {
        "veracity.sample_id": record.sample_id,
        "veracity.iteration": record.iteration,
        "veracity.status": record.status.value,
    }
    if record.system is not None:
        found["veracity.system"] = record.system
    if record.question_type is not None:
        found["veracity.question_type"] = record.question_type
    return found


def result_id(run_id: str, record: ResultRecord) -> str:
    """The same result of the same run always gets the same id."""
    key = "\x1f".join(
        (run_id, record.sample_id, record.system or "", record.metric, str(record.iteration))
    )
    return str(uuid.uuid5(_IDS, key))


def _run_time(started_at: str | None) -> int | None:
    """The run's start in nanoseconds since the epoch, where its manifest says."""
    if not started_at:
        return None
    try:
        return int(datetime.fromisoformat(started_at).timestamp()) * 1_000_000_000
    except ValueError:
        return None


def _span_id(raw: object, size: int) -> int | None:
    """A trace or span id as OTLP JSON writes it (hex, or base64 from protobuf's JSON)."""
    if not isinstance(raw, str) or not raw:
        return None
    if len(raw) == 2 * size and all(c in "0123456789abcdefABCDEF" for c in raw):
        return int(raw, 16)
    try:
        decoded = base64.b64decode(raw, validate=True)
    except ValueError:
        return None
    return int.from_bytes(decoded, "big") if len(decoded) == size else None


def traced_origins(run: RunData) -> dict[tuple[str, str | None], tuple[int, int]]:
    """The trace and span each sample of a run came from, where its dataset says (samples
    read from traces keep ``trace_id`` and ``span_id`` in their metadata)."""
    from veracity.integrations.traced import run_samples

    found = {}
    for key, sample in run_samples(run).items():
        trace = _span_id(sample.metadata.get("trace_id"), 16)
        span = _span_id(sample.metadata.get("span_id"), 8)
        if trace and span:
            found[key] = (trace, span)
    return found


def emit_results(
    source: Path | str | RunLike,
    *,
    logger_provider: LoggerProvider | None = None,
    tracer_provider: TracerProvider | None = None,
    thresholds: Mapping[str, float] | None = None,
) -> int:
    """Emit one ``gen_ai.evaluation.result`` event per result of ``source`` (a run
    directory or the result of ``evaluate``) through the providers given (at least one);
    ``thresholds`` on top of the run's set the pass/fail labels. Returns how many events
    were emitted (per provider). Flushing and exporting are the providers' own business.
    """
    if logger_provider is None and tracer_provider is None:
        raise ValueError("emit_results needs a logger_provider, a tracer_provider or both")
    from opentelemetry._logs import LogRecord, SeverityNumber
    from opentelemetry.trace import Link, SpanContext, TraceFlags

    run = load_run(source, thresholds)
    run_id = str(run.manifest.started_at or "run")
    when = _run_time(run.manifest.started_at)
    origins = traced_origins(run)
    sampled = TraceFlags(TraceFlags.SAMPLED)
    logger = None if logger_provider is None else logger_provider.get_logger(SCOPE, __version__)
    tracer = None if tracer_provider is None else tracer_provider.get_tracer(SCOPE, __version__)
    run_span: AbstractContextManager[Any] = nullcontext()
    if tracer is not None:
        judge = run.judge
        described = {
            "veracity.judge": judge.get("name"),
            "veracity.judge.model": judge.get("model"),
            "veracity.run_dir": None if run.run_dir is None else str(run.run_dir),
            "veracity.results": run.summary["results"],
        }
        attributes = {key: value for key, value in described.items() if value is not None}
        run_span = tracer.start_as_current_span("veracity evaluation", attributes=attributes)
    emitted = 0
    with run_span:
        for record in run.records():
            attributes = evaluation_attributes(record, run.threshold(record.metric))
            attributes[RESULT_ID] = result_id(run_id, record)
            origin = origins.get((record.sample_id, record.system))
            span: AbstractContextManager[Any] = nullcontext()
            if tracer is not None:
                # A sample read from a trace: its result span links to the span evaluated.
                links = [] if origin is None else [Link(SpanContext(*origin, True, sampled))]
                span = tracer.start_as_current_span(
                    f"evaluate {record.metric}", attributes=item_attributes(record), links=links
                )
            with span as current:
                if current is not None:
                    current.add_event(EVENT, attributes)
                if logger is not None:
                    # The evaluated span's ids where the sample came from a trace (the
                    # conventions parent the event to it), else the current context's.
                    ids: dict[str, Any] = (
                        {}
                        if origin is None
                        else {"trace_id": origin[0], "span_id": origin[1], "trace_flags": sampled}
                    )
                    logger.emit(
                        LogRecord(
                            timestamp=when,
                            observed_timestamp=when,
                            event_name=EVENT,
                            attributes=attributes,
                            severity_number=SeverityNumber.INFO,
                            **ids,
                        )
                    )
            emitted += 1
    return emitted
