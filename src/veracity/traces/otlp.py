"""Spans out of OTLP JSON trace files: what an OpenTelemetry collector's file exporter
writes (``ExportTraceServiceRequest`` objects, one a line, or one object or an array of
them in a ``.json`` file).

Attribute values are the proto3 JSON ``AnyValue`` (``{"stringValue": …}``,
``{"intValue": "3"}``, arrays, key-value lists), read into plain Python values; a file
whose attributes are already plain values reads too.

One bad part never stops a file: a line that is not JSON (or nested too deep to read) or
not an export request is skipped, named by file and line (``on_skip``); a span whose
fields cannot be read (a time that is not a number, a malformed value) carries its
``problem``, and its whole trace is skipped by the caller, named by trace id, file and
line. A file none of whose lines is an export request is a :class:`TraceFileError`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

__all__ = ["UNREADABLE_LINE", "OnSkip", "Span", "TraceFileError", "TraceWindowCut", "read_spans"]

MAX_DEPTH = 32  # nested attribute values deeper than this are cut, not recursed into
MAX_NANOS = 2**64 - 1  # OTLP's times are fixed64
UNREADABLE_LINE = "unreadable line"
PROJECT_KEY = "openinference.project.name"  # where Phoenix files a trace

# Told of a part of a source skipped: (reason, where and why).
OnSkip = Callable[[str, str], None]


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
    service: str | None = None  # the service's name (``service.name``)
    project: str | None = None  # the project it is filed under (Phoenix's, OpenInference's)
    where: str = ""  # the file and line it was read from
    problem: str | None = None  # why it cannot be read: its trace is skipped


class _BadSpan(ValueError):
    """A span field that is not what OTLP says it is."""


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
        except (TypeError, ValueError, OverflowError):
            return raw["intValue"]
    if "doubleValue" in raw:
        return raw["doubleValue"]
    if "arrayValue" in raw:
        values = _wrapped(raw, "arrayValue")
        return [_value(v, depth + 1) for v in values]
    if "kvlistValue" in raw:
        return _attributes(_wrapped(raw, "kvlistValue"), depth + 1)
    if "bytesValue" in raw:
        return raw["bytesValue"]
    return raw


def _wrapped(raw: Mapping[str, Any], kind: str) -> list[Any]:
    """The ``values`` of an ``arrayValue`` or ``kvlistValue`` (none: empty)."""
    wrapper = raw[kind]
    values = wrapper.get("values", []) if isinstance(wrapper, Mapping) else wrapper
    if wrapper is None or values is None:
        return []
    if not isinstance(values, list):
        raise _BadSpan(f"{kind}: its values are not a list but {type(values).__name__}")
    return values


def _attributes(raw: Any, depth: int = 0) -> dict[str, Any]:
    if isinstance(raw, Mapping):  # already plain: {"input.value": "…"}
        return {str(k): v for k, v in raw.items()}
    found: dict[str, Any] = {}
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, Mapping) and isinstance(item.get("key"), str):
            found[item["key"]] = _value(item.get("value"), depth)
    return found


def _nanos(raw: Any, name: str) -> int:
    """A time in nanoseconds (none given: 0)."""
    if raw is None:
        return 0
    if isinstance(raw, float) and math.isfinite(raw):
        raw = int(raw)
    try:
        nanos = int(raw) if isinstance(raw, int | str) and not isinstance(raw, bool) else -1
    except ValueError:
        nanos = -1
    if not 0 <= nanos <= MAX_NANOS:
        shown = str(raw)[:40] if isinstance(raw, str | int | float) else type(raw).__name__
        raise _BadSpan(f"{name} {shown!r} is not a time in nanoseconds")
    return nanos


def _spans_of(request: Any, where: str) -> Iterator[Span]:
    if not isinstance(request, Mapping) or not isinstance(request.get("resourceSpans"), list):
        raise TraceFileError(f"{where}: not an OTLP trace export (no 'resourceSpans' array)")
    for resource_spans in request["resourceSpans"]:
        if not isinstance(resource_spans, Mapping):
            continue
        resource = resource_spans.get("resource")
        try:
            attributes = (
                _attributes(resource.get("attributes", [])) if isinstance(resource, Mapping) else {}
            )
            problem = None
        except (ValueError, TypeError, RecursionError) as exc:
            attributes, problem = {}, f"its resource: {exc}"
        service, project = attributes.get("service.name"), attributes.get(PROJECT_KEY)
        service = service if isinstance(service, str) and _named(service) else None
        project = project if isinstance(project, str) and project else None
        scopes = resource_spans.get("scopeSpans", resource_spans.get("instrumentationLibrarySpans"))
        for scope in scopes if isinstance(scopes, list) else []:
            spans = scope.get("spans") if isinstance(scope, Mapping) else None
            for span in spans if isinstance(spans, list) else []:
                if not isinstance(span, Mapping) or not span.get("traceId"):
                    continue
                trace_id, span_id = _field(span["traceId"]), _field(span.get("spanId"))
                start = end = 0
                attributes, bad = {}, None
                try:
                    if problem is not None or not trace_id:
                        raise _BadSpan(problem or "a traceId that is not a string")
                    start = _nanos(span.get("startTimeUnixNano"), "startTimeUnixNano")
                    end = _nanos(span.get("endTimeUnixNano"), "endTimeUnixNano")
                    attributes = _attributes(span.get("attributes", []))
                except (ValueError, TypeError, RecursionError) as exc:  # _BadSpan, and worse
                    bad = f"span {span_id[:40]!r}: {exc}"
                yield Span(
                    trace_id=trace_id or f"(unreadable traceId at {where})", span_id=span_id,
                    parent_id=_field(span.get("parentSpanId")), name=_field(span.get("name")),
                    start=start, end=end, attributes=attributes, service=service,
                    project=project, where=where, problem=bad,
                )  # fmt: skip


def _field(raw: Any) -> str:
    """An id or a name: text, or a number written as text (anything else: none)."""
    if isinstance(raw, str):
        return raw
    return str(raw) if isinstance(raw, int | float) and not isinstance(raw, bool) else ""


def _named(service: str) -> bool:
    """Whether a ``service.name`` names a service: OpenTelemetry's SDKs write
    ``unknown_service`` (``unknown_service:python``…) where none was set."""
    return bool(service.strip()) and not service.startswith("unknown_service")


def read_spans(path: str | Path, on_skip: OnSkip | None = None) -> Iterator[Span]:
    """Every span of the OTLP JSON file ``path``, in file order; a part that cannot be
    read is skipped and told to ``on_skip`` (none: not told)."""
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
            loaded = _json(handle.read(), str(file))
            items = loaded if isinstance(loaded, list) else [loaded]
            yield from readable_parts(
                ((f"{file}: item {n}", item) for n, item in enumerate(items, 1)), _spans_of, on_skip
            )
            return
        yield from readable_parts(_lines(handle, file), _spans_of, on_skip)


def _lines(handle: IO[bytes], file: Path) -> Iterator[tuple[str, Any]]:
    """Each line's export request, or the TraceFileError saying why it is none."""
    for number, line in enumerate(handle, start=1):
        if line.strip():
            where = f"{file}:{number}"
            try:
                yield where, _json(line, where)
            except TraceFileError as exc:
                yield where, exc


def _json(raw: bytes, where: str) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise TraceFileError(f"{where}: not JSON ({exc})") from None
    except RecursionError:
        raise TraceFileError(f"{where}: not JSON that can be read (nested too deep)") from None


def readable_parts(
    parts: Iterable[tuple[str, Any]],
    spans_of: Callable[[Any, str], Iterable[Span]],
    on_skip: OnSkip | None,
) -> Iterator[Span]:
    """The spans ``spans_of`` reads from each part of a file (an export request, a trace);
    a part that cannot be read (a :class:`TraceFileError` in its place, or raised reading
    it) skipped and told. None readable at all is the file's error (the first part's)."""
    first_problem: TraceFileError | None = None
    read_one = False
    for where, part in parts:
        try:
            if isinstance(part, TraceFileError):
                raise part
            spans = list(spans_of(part, where))
        except TraceFileError as exc:
            first_problem = first_problem or exc
            if on_skip is not None:
                on_skip(UNREADABLE_LINE, str(exc))
            continue
        read_one = True
        yield from spans
    if not read_one and first_problem is not None:
        raise first_problem
