"""Spans out of a running Arize Phoenix, through its client: one project, a time window."""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any

from veracity.traces.otlp import Span, TraceFileError, TraceWindowCut
from veracity.traces.phoenix_client import phoenix_client

__all__ = ["PHOENIX_PAGE", "read_phoenix_spans"]

# Spans asked for at most: a project's window beyond it is cut, and said.
PHOENIX_PAGE = 100_000


def _nanos(raw: Any) -> int:
    if not isinstance(raw, str):
        return 0
    try:
        return int(datetime.fromisoformat(raw).timestamp() * 1e9)
    except ValueError:
        return 0


def _span(raw: Mapping[str, Any], project: str) -> Span | None:
    context = raw.get("context")
    if not isinstance(context, Mapping) or not context.get("trace_id"):
        return None
    given = raw.get("attributes")
    attributes = dict(given) if isinstance(given, Mapping) else {}
    # Phoenix keeps the span kind beside the attributes, not among them.
    attributes.setdefault("openinference.span.kind", raw.get("span_kind") or "")
    # Phoenix keeps no resource: the service is known only where a span names it.
    service = attributes.get("service.name")
    return Span(
        trace_id=str(context["trace_id"]),
        span_id=str(context.get("span_id", "")),
        parent_id=str(raw.get("parent_id") or ""),
        name=str(raw.get("name", "")),
        start=_nanos(raw.get("start_time")),
        end=_nanos(raw.get("end_time")),
        attributes=attributes,
        service=service if isinstance(service, str) and service.strip() else None,
        project=project,
        problem=None if given is None or isinstance(given, Mapping) else "attributes not an object",
    )


def read_phoenix_spans(
    base_url: str, project: str, *, since: datetime | None = None, limit: int = PHOENIX_PAGE
) -> Iterator[Span]:
    """The spans of ``project`` on the Phoenix at ``base_url`` (since ``since``); a server
    that cannot be reached or a project it does not have is a :class:`TraceFileError`."""
    try:
        client = phoenix_client().Client(base_url=base_url)
    except ImportError as exc:
        raise TraceFileError(
            "reading from Phoenix needs its client: pip install 'veracity[phoenix]'"
        ) from exc
    try:
        found = client.spans.get_spans(
            project_identifier=project, start_time=since, limit=limit, timeout=60
        )
    except Exception as exc:  # the client raises httpx's errors, and its own
        raise TraceFileError(f"Phoenix at {base_url}, project {project!r}: {exc}") from exc
    if len(found) >= limit:
        warnings.warn(
            f"Phoenix at {base_url}, project {project!r}: read the first {limit} spans of the "
            "window only: narrow it with --since",
            TraceWindowCut,
            stacklevel=2,
        )
    for raw in found:
        span = _span(raw, project) if isinstance(raw, Mapping) else None
        if span is not None:
            yield span
