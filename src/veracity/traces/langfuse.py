"""Traces out of a Langfuse export: the JSON the API gives for traces with their
observations (``{"data": [...]}`` or a bare array of traces, one trace an object, or one
trace a line).

Each trace and its observations are read as spans in OpenInference's terms, so one mapping
reads them all: the trace is the root (its input and output), a ``GENERATION`` is an LLM
call (its input messages, its output), a ``RETRIEVER`` observation (or, from SDKs before
observation types, a span whose name says it retrieves) holds the documents.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from veracity.traces.otlp import OnSkip, Span, TraceFileError, readable_parts
from veracity.traces.texts import loaded_json

__all__ = ["observation_span", "read_langfuse_spans", "readable_observation"]

_DOCUMENT_KEYS = ("page_content", "content", "text", "document")


def _nanos(raw: Any) -> int:
    if isinstance(raw, datetime):
        return int(raw.timestamp() * 1e9)
    if not isinstance(raw, str):
        return 0
    try:
        return int(datetime.fromisoformat(raw.replace("Z", "+00:00")).timestamp() * 1e9)
    except (ValueError, OverflowError):
        return 0


def _as_text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _documents(output: Any) -> list[str]:
    if isinstance(output, Mapping):
        output = next((output[k] for k in ("documents", "nodes", "results") if k in output), [])
    found = []
    for item in output if isinstance(output, list) else []:
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, Mapping):
            text = next((item[k] for k in _DOCUMENT_KEYS if isinstance(item.get(k), str)), None)
            if text is not None:
                found.append(text)
    return found


def _messages(value: Any) -> list[Mapping[str, Any]]:
    if isinstance(value, Mapping) and isinstance(value.get("messages"), list):
        value = value["messages"]
    return [m for m in value if isinstance(m, Mapping)] if isinstance(value, list) else []


def observation_span(
    raw: Mapping[str, Any], trace_id: str, parent: str = "", service: str | None = None
) -> Span:
    """One observation (as the API writes it, camelCase) as a span; ``parent`` when it
    names none."""
    kind = str(raw.get("type") or "").upper()
    name = str(raw.get("name") or "")
    attributes: dict[str, Any] = {}
    if kind == "GENERATION":
        attributes["openinference.span.kind"] = "LLM"
        for i, message in enumerate(_messages(raw.get("input"))):
            attributes[f"llm.input_messages.{i}.message.role"] = str(message.get("role", ""))
            attributes[f"llm.input_messages.{i}.message.content"] = _as_text(message.get("content"))
        output = raw.get("output")
        if isinstance(output, Mapping):
            output = output.get("content", output)
        if (text := _as_text(output)) is not None:
            attributes["llm.output_messages.0.message.content"] = text
    elif kind == "RETRIEVER" or (kind == "SPAN" and "retriev" in name.casefold()):
        attributes["openinference.span.kind"] = "RETRIEVER"
        for i, document in enumerate(_documents(raw.get("output"))):
            attributes[f"retrieval.documents.{i}.document.content"] = document
    else:
        attributes["openinference.span.kind"] = kind
        # A request's own input and output, where this observation is its root.
        if (answer := _as_text(raw.get("output"))) is not None:
            attributes["output.value"] = answer
    if (question := _as_text(raw.get("input"))) is not None and kind != "GENERATION":
        attributes["input.value"] = question
    return Span(
        trace_id=trace_id,
        span_id=str(raw.get("id", "")),
        parent_id=str(raw.get("parentObservationId") or parent),
        name=name,
        start=_nanos(raw.get("startTime")),
        end=_nanos(raw.get("endTime") or raw.get("startTime")),
        attributes=attributes,
        service=service,
    )


def _checked_spans(trace: Any, where: str) -> list[Span]:
    """The spans of one trace of an export; whatever stops its reading, a located
    :class:`TraceFileError` (one bad trace never ends the file)."""
    try:
        return list(_spans_of(trace, where))
    except TraceFileError:
        raise
    except (TypeError, ValueError, RecursionError) as exc:
        raise TraceFileError(f"{where}: {exc}") from exc


def _spans_of(trace: Any, where: str) -> Iterator[Span]:
    if not isinstance(trace, Mapping) or not isinstance(trace.get("id"), str):
        raise TraceFileError(f"{where}: not a Langfuse trace (an object with an 'id')")
    trace_id = trace["id"]
    root: dict[str, Any] = {"openinference.span.kind": "CHAIN"}
    for key, attribute in (("input", "input.value"), ("output", "output.value")):
        if (text := _as_text(trace.get(key))) is not None:
            root[attribute] = text
    observations = trace.get("observations") or []
    service = _service(trace)
    yield Span(
        trace_id=trace_id, span_id=trace_id, parent_id="", name=str(trace.get("name") or ""),
        start=_nanos(trace.get("timestamp")), end=_nanos(trace.get("timestamp")),
        attributes=root, service=service, where=where,
        problem=None if isinstance(observations, list) else
        f"'observations' is {type(observations).__name__}, not a list",
    )  # fmt: skip
    for observation in observations if isinstance(observations, list) else []:
        if isinstance(observation, Mapping):  # an id alone (the list endpoint) says nothing
            yield readable_observation(observation, trace_id, trace_id, service, where)


def readable_observation(
    raw: Mapping[str, Any], trace_id: str, parent: str, service: str | None, where: str
) -> Span:
    """:func:`observation_span`, or, where the observation cannot be read, a span saying
    why (its trace is skipped, named)."""
    try:
        return observation_span(raw, trace_id, parent=parent, service=service)
    except (TypeError, ValueError, OverflowError, RecursionError) as exc:
        named = raw.get("id")
        shown = named[:64] if isinstance(named, str) else type(named).__name__
        return Span(
            trace_id=trace_id, span_id=shown, parent_id="", name="", start=0, end=0,
            where=where, problem=f"observation {shown!r}: {exc}",
        )  # fmt: skip


def _service(trace: Mapping[str, Any]) -> str | None:
    """The service a trace carries: the ``service.name`` of the resource that Langfuse
    keeps in the metadata of a trace sent over OpenTelemetry (the trace's or an
    observation's), else the trace's name (Langfuse keeps no other)."""
    observations = trace.get("observations")
    for item in [trace, *(observations if isinstance(observations, list) else [])]:
        metadata = item.get("metadata") if isinstance(item, Mapping) else None
        resource = metadata.get("resourceAttributes") if isinstance(metadata, Mapping) else None
        named = resource.get("service.name") if isinstance(resource, Mapping) else None
        if isinstance(named, str) and named.strip() and not named.startswith("unknown_service"):
            return named
    name = trace.get("name")
    return name if isinstance(name, str) and name.strip() else None


def read_langfuse_spans(path: str | Path, on_skip: OnSkip | None = None) -> Iterator[Span]:
    """Every trace of the Langfuse export ``path``, as spans; a line or an item that is not
    a trace skipped and told to ``on_skip``; none readable at all, the file's error."""
    file = Path(path)
    if not file.is_file():
        problem = "is not a file" if file.exists() else "does not exist"
        raise TraceFileError(f"{file}: the export {problem}")
    text = file.read_text(encoding="utf-8", errors="replace")
    loaded = loaded_json(text)
    if loaded is not None:
        items: list[tuple[str, Any]] = [
            (f"{file}: trace {n}", t) for n, t in enumerate(_traces(loaded), 1)
        ]
    else:  # one trace a line
        items = []
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                parsed = loaded_json(line)
                at = f"{file}:{number}"
                items.append(
                    (at, parsed if parsed is not None else TraceFileError(at + ": not JSON"))
                )
    yield from readable_parts(items, _checked_spans, on_skip)


def _traces(loaded: Any) -> list[Any]:
    if isinstance(loaded, Mapping) and isinstance(loaded.get("data"), list):
        return list(loaded["data"])
    return loaded if isinstance(loaded, list) else [loaded]
