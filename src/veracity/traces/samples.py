"""A trace source's RAG requests as samples: read, grouped by trace, filtered, mapped."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Literal, get_args

from veracity.traces.langfuse import read_langfuse_spans
from veracity.traces.langfuse_api import read_langfuse_api_spans
from veracity.traces.otlp import Span, read_spans
from veracity.traces.phoenix import read_phoenix_spans
from veracity.traces.rag import TraceMapping, sample_of
from veracity.traces.select import FILTERED_OUT, TraceFilter
from veracity.types import Sample

__all__ = [
    "EVALUATED_BEFORE",
    "TRACE_SOURCES",
    "TraceQuery",
    "TraceSamples",
    "TraceSource",
    "is_url",
    "samples_from_spans",
    "samples_from_traces",
    "streamed_samples",
]

EVALUATED_BEFORE = "evaluated before"

TraceSource = Literal["otlp", "phoenix", "langfuse"]
TRACE_SOURCES: tuple[TraceSource, ...] = get_args(TraceSource)


@dataclass(frozen=True)
class TraceSamples:
    """The samples of a trace source, and the traces skipped, counted by reason."""

    samples: list[Sample]
    skipped: Counter[str] = field(default_factory=Counter)

    @property
    def traces(self) -> int:
        return len(self.samples) + sum(self.skipped.values())


@dataclass(frozen=True)
class TraceQuery:
    """Which traces of a source to read, and how to read them."""

    kind: TraceSource = "otlp"
    project: str = "default"  # Phoenix's
    since: datetime | None = None
    mapping: TraceMapping | None = None
    where: TraceFilter = field(default_factory=TraceFilter)
    seen: Collection[str] = ()  # trace ids evaluated before


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
    query = TraceQuery(mapping=mapping, where=where or TraceFilter(), seen=seen)
    skipped: Counter[str] = Counter()
    return _sorted(_samples(_grouped(spans), query, skipped), skipped)


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
    """The RAG requests of ``source`` as samples, in the order the traces start: an OTLP
    JSON trace file (``kind="otlp"``), a running Arize Phoenix's base URL
    (``kind="phoenix"``, its ``project``, spans since ``since``), a Langfuse export or a
    Langfuse server's URL (``kind="langfuse"``, its keys in ``LANGFUSE_PUBLIC_KEY`` /
    ``LANGFUSE_SECRET_KEY``, observations since ``since``). ``where``: conditions a trace
    must meet (``"service.name=rag-prod"``, see :class:`TraceFilter`); ``seen``: trace ids
    to leave out, as evaluated before. :class:`TraceFileError` names what cannot be read."""
    if isinstance(where, str):  # one condition, not its characters
        where = [where]
    chosen = where if isinstance(where, TraceFilter) else TraceFilter.parse(where)
    query = TraceQuery(kind, project, since, mapping, chosen, seen)
    skipped: Counter[str] = Counter()
    return _sorted(_samples(_traces(source, query), query, skipped), skipped)


def streamed_samples(
    source: str | Path, query: TraceQuery, skipped: Counter[str]
) -> Iterator[Sample]:
    """The samples of :func:`samples_from_traces`, one at a time as each trace is whole
    (a file's, in the order their last spans come), none held: for a source too large to
    keep. ``skipped`` counts the traces left out, by reason."""
    return (sample for _, sample in _samples(_traces(source, query), query, skipped))


def _traces(source: str | Path, query: TraceQuery) -> Iterable[list[Span]]:
    if query.kind == "phoenix":
        return _grouped(read_phoenix_spans(str(source), query.project, since=query.since))
    if query.kind == "langfuse" and is_url(source):
        return _grouped(read_langfuse_api_spans(str(source), since=query.since))
    reader = read_langfuse_spans if query.kind == "langfuse" else read_spans
    return _whole_traces(lambda: reader(source))  # a file: read twice rather than held


def _grouped(spans: Iterable[Span]) -> Iterable[list[Span]]:
    by_trace: dict[str, list[Span]] = defaultdict(list)
    for span in spans:
        by_trace[span.trace_id].append(span)
    return by_trace.values()


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


def _samples(
    traces: Iterable[list[Span]], query: TraceQuery, skipped: Counter[str]
) -> Iterator[tuple[int, Sample]]:
    """Each trace's sample with the trace's start; the traces left out counted."""
    for trace in traces:
        if trace[0].trace_id in query.seen:
            skipped[EVALUATED_BEFORE] += 1
        elif not query.where.keeps(trace):
            skipped[FILTERED_OUT] += 1
        elif isinstance(made := sample_of(trace, query.mapping), Sample):
            yield min(span.start for span in trace), made
        else:
            skipped[made] += 1


def _sorted(samples: Iterable[tuple[int, Sample]], skipped: Counter[str]) -> TraceSamples:
    found = sorted(samples, key=lambda pair: pair[0])  # stable: ties keep their order
    return TraceSamples([sample for _, sample in found], skipped)
