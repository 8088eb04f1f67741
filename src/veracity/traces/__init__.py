"""Traces as a source of samples: what production did, evaluated where it lives."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from veracity.traces.otlp import Span, TraceFileError, read_spans
from veracity.traces.rag import NOT_RAG, TraceMapping, sample_of
from veracity.types import Sample

__all__ = ["NOT_RAG", "TraceFileError", "TraceMapping", "TraceSamples", "samples_from_traces"]


@dataclass(frozen=True)
class TraceSamples:
    """The samples of a trace file, and the traces skipped, counted by reason."""

    samples: list[Sample]
    skipped: Counter[str] = field(default_factory=Counter)

    @property
    def traces(self) -> int:
        return len(self.samples) + sum(self.skipped.values())


def samples_from_traces(path: str | Path, mapping: TraceMapping | None = None) -> TraceSamples:
    """The RAG requests of the OTLP JSON trace file ``path`` as samples, one a trace, in
    the order the traces start. :class:`TraceFileError` names a line that cannot be read."""
    by_trace: dict[str, list[Span]] = defaultdict(list)
    for span in read_spans(path):
        by_trace[span.trace_id].append(span)
    found = TraceSamples([])
    for spans in sorted(by_trace.values(), key=lambda s: min(x.start for x in s)):
        made = sample_of(spans, mapping)
        if isinstance(made, Sample):
            found.samples.append(made)
        else:
            found.skipped[made] += 1
    return found
