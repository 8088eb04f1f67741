"""Traces as a source of samples: what production did, evaluated where it lives."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Literal, get_args

from veracity.traces.langfuse import read_langfuse_spans
from veracity.traces.langfuse_api import read_langfuse_api_spans
from veracity.traces.otlp import Span, TraceFileError, read_spans
from veracity.traces.phoenix import read_phoenix_spans
from veracity.traces.rag import NOT_RAG, TraceMapping, sample_of
from veracity.traces.select import FILTERED_OUT, TraceFilter
from veracity.types import Sample

__all__ = [
    "EVALUATED_BEFORE",
    "FILTERED_OUT",
    "NOT_RAG",
    "TRACE_SOURCES",
    "TraceFileError",
    "TraceFilter",
    "TraceMapping",
    "TraceSamples",
    "TraceSource",
    "is_url",
    "samples_from_spans",
    "samples_from_traces",
]


EVALUATED_BEFORE = "evaluated before"

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


def is_url(source: str | Path) -> bool:
    """Whether a trace source names a server, not a file."""
    return isinstance(source, str) and source.startswith(("http://", "https://"))


def samples_from_spans(
    spans: Iterable[Span],
    mapping: TraceMapping | None = None,
    *,
    where: TraceFilter | None = None,
    seen: Collection[str] = (),
) -> TraceSamples:
    """The RAG requests among ``spans`` as samples, one a trace, in the order the traces
    start; the other traces counted by why they were skipped: not a RAG request, not
    meeting ``where``, or among the trace ids ``seen`` (evaluated by an earlier run)."""
    by_trace: dict[str, list[Span]] = defaultdict(list)
    for span in spans:
        by_trace[span.trace_id].append(span)
    return _samples(by_trace.values(), mapping, where, seen)


def _samples(
    traces: Iterable[list[Span]],
    mapping: TraceMapping | None,
    where: TraceFilter | None,
    seen: Collection[str],
) -> TraceSamples:
    found = TraceSamples([])
    starts: dict[str, int] = {}
    for trace in traces:
        if trace[0].trace_id in seen:
            found.skipped[EVALUATED_BEFORE] += 1
            continue
        if where is not None and not where.keeps(trace):
            found.skipped[FILTERED_OUT] += 1
            continue
        made = sample_of(trace, mapping)
        if isinstance(made, Sample):
            found.samples.append(made)
            starts[made.id] = min(span.start for span in trace)
        else:
            found.skipped[made] += 1
    found.samples.sort(key=lambda sample: starts[sample.id])
    return found


def _whole_traces(read: Callable[[], Iterable[Span]]) -> Iterator[list[Span]]:
    """Each trace's spans as soon as its last one is read, so that a file's traces are not
    all held at once: a first pass counts each trace's spans, the second holds only the
    traces still open. Spans a file gained between the passes (a collector still writing
    it) come with the open traces at the end, or, for a trace already given, are dropped."""
    counts = Counter(span.trace_id for span in read())
    open_traces: dict[str, list[Span]] = {}
    given: set[str] = set()
    for span in read():
        if span.trace_id in given:
            continue
        spans = open_traces.setdefault(span.trace_id, [])
        spans.append(span)
        if len(spans) == counts[span.trace_id]:
            given.add(span.trace_id)
            yield open_traces.pop(span.trace_id)
    yield from open_traces.values()


def samples_from_traces(
    source: str | Path,
    *,
    kind: TraceSource = "otlp",
    project: str = "default",
    since: datetime | None = None,
    mapping: TraceMapping | None = None,
    where: TraceFilter | Sequence[str] = (),
    seen: Collection[str] = (),
) -> TraceSamples:
    """The RAG requests of ``source`` as samples: an OTLP JSON trace file (``kind="otlp"``),
    a running Arize Phoenix's base URL (``kind="phoenix"``, its ``project``, spans since
    ``since``), a Langfuse export or a Langfuse server's URL (``kind="langfuse"``, its
    keys in ``LANGFUSE_PUBLIC_KEY`` / ``LANGFUSE_SECRET_KEY``, observations since
    ``since``). ``where``: conditions a trace must meet (``"service.name=rag-prod"``, see
    :class:`TraceFilter`); ``seen``: trace ids to leave out, as evaluated before.
    :class:`TraceFileError` names what cannot be read."""
    chosen = where if isinstance(where, TraceFilter) else TraceFilter.parse(where)
    if kind == "phoenix":
        spans: Iterable[Span] = read_phoenix_spans(str(source), project, since=since)
    elif kind == "langfuse" and is_url(source):
        spans = read_langfuse_api_spans(str(source), since=since)
    else:  # a file, read twice rather than held whole
        reader = read_langfuse_spans if kind == "langfuse" else read_spans
        return _samples(_whole_traces(lambda: reader(source)), mapping, chosen, seen)
    return samples_from_spans(spans, mapping, where=chosen, seen=seen)
