"""Traces as a source of samples: what production did, evaluated where it lives."""

from veracity.traces.otlp import UNREADABLE_LINE, TraceFileError, TraceWindowCut
from veracity.traces.rag import ECHOED_QUESTION, NOT_RAG, ROOT_UNREAD, TraceMapping
from veracity.traces.samples import (
    EVALUATED_BEFORE,
    TRACE_SOURCES,
    UNREADABLE_TRACE,
    TraceQuery,
    TraceSamples,
    TraceSource,
    is_url,
    samples_from_spans,
    samples_from_traces,
    streamed_samples,
)
from veracity.traces.select import FILTERED_OUT, TraceFilter
from veracity.traces.tally import TraceReadWarning, TraceTally

__all__ = [
    "ECHOED_QUESTION",
    "EVALUATED_BEFORE",
    "FILTERED_OUT",
    "NOT_RAG",
    "ROOT_UNREAD",
    "TRACE_SOURCES",
    "UNREADABLE_LINE",
    "UNREADABLE_TRACE",
    "TraceFileError",
    "TraceFilter",
    "TraceMapping",
    "TraceQuery",
    "TraceReadWarning",
    "TraceSamples",
    "TraceSource",
    "TraceTally",
    "TraceWindowCut",
    "is_url",
    "samples_from_spans",
    "samples_from_traces",
    "streamed_samples",
]
