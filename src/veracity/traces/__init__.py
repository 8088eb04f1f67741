"""Traces as a source of samples: what production did, evaluated where it lives."""

from veracity.traces.otlp import TraceFileError, TraceWindowCut
from veracity.traces.rag import NOT_RAG, TraceMapping
from veracity.traces.samples import (
    EVALUATED_BEFORE,
    TRACE_SOURCES,
    TraceQuery,
    TraceSamples,
    TraceSource,
    is_url,
    samples_from_spans,
    samples_from_traces,
    streamed_samples,
)
from veracity.traces.select import FILTERED_OUT, TraceFilter

__all__ = [
    "EVALUATED_BEFORE",
    "FILTERED_OUT",
    "NOT_RAG",
    "TRACE_SOURCES",
    "TraceFileError",
    "TraceFilter",
    "TraceMapping",
    "TraceQuery",
    "TraceSamples",
    "TraceSource",
    "TraceWindowCut",
    "is_url",
    "samples_from_spans",
    "samples_from_traces",
    "streamed_samples",
]
