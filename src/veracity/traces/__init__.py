"""Traces as a source of samples: what production did, evaluated where it lives."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Literal, get_args

from veracity.traces.langfuse import read_langfuse_spans
from veracity.traces.otlp import Span, TraceFileError, read_spans
from veracity.traces.phoenix import read_phoenix_spans
from veracity.traces.rag import NOT_RAG, TraceMapping, sample_of
from veracity.types import Sample

__all__ = [
    "NOT_RAG",
    "TRACE_SOURCES",
    "TraceFileError",
    "TraceMapping",
    "TraceSamples",
    "TraceSource",
    "samples_from_spans",
    "samples_from_traces",
]


TraceSource = Literal["otlp", "phoenix", "langfuse"]
TRACE_SOURCES: tuple[TraceSource, ...] = get_args(TraceSource)


@dataclass(frozen=True)
class TraceSamples:
    """The samples of a trace file, and the traces skipped, counted by reason."""

    samples: list[Sample]
    skipped: Counter[str] = field(default_factory=Counter)

    @property
    def traces(self) -> int:
        return len(self.samples) + sum(self.skipped.values())


def samples_from_spans(spans: Iterable[Span], mapping: TraceMapping | None = None) -> TraceSamples:
    """The RAG requests among ``spans`` as samples, one a trace, in the order the traces
    start; the other traces counted by why they were skipped."""
    by_trace: dict[str, list[Span]] = defaultdict(list)
    for span in spans:
        by_trace[span.trace_id].append(span)
    found = TraceSamples([])
    for trace in sorted(by_trace.values(), key=lambda s: min(x.start for x in s)):
        made = sample_of(trace, mapping)
        if isinstance(made, Sample):
            found.samples.append(made)
        else:
            found.skipped[made] += 1
    return found


def samples_from_traces(
    source: str | Path,
    *,
    kind: TraceSource = "otlp",
    project: str = "default",
    since: datetime | None = None,
    mapping: TraceMapping | None = None,
) -> TraceSamples:
    """The RAG requests of ``source`` as samples: an OTLP JSON trace file (``kind="otlp"``),
    a running Arize Phoenix's base URL (``kind="phoenix"``, its ``project``, spans since
    ``since``) or a Langfuse export (``kind="langfuse"``). :class:`TraceFileError` names
    what cannot be read."""
    if kind == "phoenix":
        return samples_from_spans(read_phoenix_spans(str(source), project, since=since), mapping)
    if kind == "langfuse":
        return samples_from_spans(read_langfuse_spans(source), mapping)
    return samples_from_spans(read_spans(source), mapping)
