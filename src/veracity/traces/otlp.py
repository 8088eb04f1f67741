"""Spans out of OTLP JSON trace files: what an OpenTelemetry collector's file exporter
writes (``ExportTraceServiceRequest`` objects, one a line, or one object or an array of
them in a ``.json`` file).

Attribute values are the proto3 JSON ``AnyValue`` (``{"stringValue": …}``,
``{"intValue": "3"}``, arrays, key-value lists), read into plain Python values; a file
whose attributes are already plain values reads too. A line that is not JSON, or JSON
that is not a request, is a :class:`TraceFileError` naming the file and the line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Span", "TraceFileError", "TraceWindowCut", "read_spans"]

MAX_DEPTH = 32  # nested attribute values deeper than this are cut, not recursed into


class TraceFileError(ValueError):
    """A trace file veracity cannot read: ``file:line: problem``."""


class TraceWindowCut(UserWarning):
    """A server's window held more spans than veracity reads at once: the rest were not."""


@dataclass(frozen=True, slots=True)
class Span:
    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start: int
    end: int
    attributes: Mapping[str, Any] = field(default_factory=dict)
    service: str | None = None


def _value(raw: Any, depth: int = 0) -> Any:
    """An OTLP ``AnyValue`` as a Python value (a plain value as it is)."""
    if not isinstance(raw, Mapping) or depth > MAX_DEPTH:
        return raw
    if "stringValue" in raw:
        return raw["stringValue"]
    if "boolValue" in raw:
        return raw["boolValue"]
    if "intValue" in raw:
        try:
            return int(raw["intValue"])
        except (TypeError, ValueError):
            return raw["intValue"]
    if "doubleValue" in raw:
        return raw["doubleValue"]
    if "arrayValue" in raw:
        values = (
            raw["arrayValue"].get("values", []) if isinstance(raw["arrayValue"], Mapping) else []
        )
        return [_value(v, depth + 1) for v in values] if isinstance(values, list) else []
    if "kvlistValue" in raw:
        return _attributes(raw["kvlistValue"].get("values", []), depth + 1)
    if "bytesValue" in raw:
        return raw["bytesValue"]
    return raw


def _attributes(raw: Any, depth: int = 0) -> dict[str, Any]:
    if isinstance(raw, Mapping):  # already plain: {"input.value": "…"}
        return {str(k): v for k, v in raw.items()}
    found: dict[str, Any] = {}
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, Mapping) and isinstance(item.get("key"), str):
            found[item["key"]] = _value(item.get("value"), depth)
    return found


def _nanos(raw: Any) -> int:
    try:
        return int(raw)
    except (TypeError, ValueError):
        return 0


def _spans_of(request: Any, where: str) -> Iterator[Span]:
    if not isinstance(request, Mapping) or not isinstance(request.get("resourceSpans"), list):
        raise TraceFileError(f"{where}: not an OTLP trace export (no 'resourceSpans' array)")
    for resource_spans in request["resourceSpans"]:
        if not isinstance(resource_spans, Mapping):
            continue
        resource = resource_spans.get("resource")
        attributes = (
            _attributes(resource.get("attributes", [])) if isinstance(resource, Mapping) else {}
        )
        service = attributes.get("service.name")
        scopes = resource_spans.get("scopeSpans", resource_spans.get("instrumentationLibrarySpans"))
        for scope in scopes if isinstance(scopes, list) else []:
            spans = scope.get("spans") if isinstance(scope, Mapping) else None
            for span in spans if isinstance(spans, list) else []:
                if not isinstance(span, Mapping) or not span.get("traceId"):
                    continue
                yield Span(
                    trace_id=str(span["traceId"]),
                    span_id=str(span.get("spanId", "")),
                    parent_id=str(span.get("parentSpanId") or ""),
                    name=str(span.get("name", "")),
                    start=_nanos(span.get("startTimeUnixNano")),
                    end=_nanos(span.get("endTimeUnixNano")),
                    attributes=_attributes(span.get("attributes", [])),
                    service=service if isinstance(service, str) else None,
                )


def read_spans(path: str | Path) -> Iterator[Span]:
    """Every span of the OTLP JSON file ``path``, in file order."""
    file = Path(path)
    if not file.is_file():
        raise TraceFileError(
            f"{file}: the trace file {'is not a file' if file.exists() else 'does not exist'}"
        )
    with file.open("rb") as handle:
        head = handle.read(1)
        while head.isspace():
            head = handle.read(1)
        handle.seek(0)
        if head == b"[" or file.suffix.lower() == ".json":
            try:
                loaded = json.loads(handle.read().decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as exc:
                raise TraceFileError(f"{file}: not JSON ({exc})") from None
            for n, request in enumerate(loaded if isinstance(loaded, list) else [loaded], 1):
                yield from _spans_of(request, f"{file}: item {n}")
            return
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                request = json.loads(line.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as exc:
                raise TraceFileError(f"{file}:{number}: not JSON ({exc})") from None
            yield from _spans_of(request, f"{file}:{number}")
