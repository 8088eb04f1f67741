"""A trace source's RAG requests as samples: read, grouped by trace, filtered, mapped.

One bad trace never stops a source: a trace that cannot be read (a span's problem, or an
error mapping it) is skipped, counted and named (trace id, file and line), and the others
are evaluated."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Literal, get_args

from veracity.traces.langfuse import read_langfuse_spans
from veracity.traces.langfuse_api import read_langfuse_api_spans
from veracity.traces.otlp import UNREADABLE_LINE, OnSkip, Span, read_spans
from veracity.traces.phoenix import read_phoenix_spans
from veracity.traces.rag import ECHOED_QUESTION, NOT_RAG, ROOT_UNREAD, TraceMapping, read_trace
from veracity.traces.select import FILTERED_OUT, TraceFilter
from veracity.traces.tally import TraceTally
from veracity.types import Sample

__all__ = [
    "EVALUATED_BEFORE",
    "TRACE_SOURCES",
    "UNREADABLE_TRACE",
    "TraceQuery",
    "TraceSamples",
    "TraceSource",
    "is_url",
    "samples_from_spans",
    "samples_from_traces",
    "streamed_samples",
]

EVALUATED_BEFORE = "evaluated before"
UNREADABLE_TRACE = "unreadable trace"
# Skips a caller of the Python API is warned of (TraceReadWarning): a trace whose answer
# could not be trusted, or that could not be read at all.
DOUBTFUL = frozenset({ECHOED_QUESTION, ROOT_UNREAD, UNREADABLE_TRACE, UNREADABLE_LINE})

TraceSource = Literal["otlp", "phoenix", "langfuse"]
TRACE_SOURCES: tuple[TraceSource, ...] = get_args(TraceSource)


@dataclass(frozen=True)
class TraceSamples:
    """The samples of a trace source; the traces skipped, counted by reason; the samples
    read with a doubt (their answer taken from the last LLM call, not the root's output),
    counted by reason; and where the first few of each reason are (:attr:`tally`)."""

    samples: list[Sample]
    skipped: Counter[str] = field(default_factory=Counter)
    doubted: Counter[str] = field(default_factory=Counter)
    tally: TraceTally = field(default_factory=TraceTally)

    @property
    def traces(self) -> int:
        return len(self.samples) + self.tally.traces_skipped


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
    tally = TraceTally()
    found = _sorted(_samples(_grouped(spans), query, tally), tally)
    tally.warn(DOUBTFUL)
    return found


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
    to leave out, as evaluated before. :class:`TraceFileError` names a source that cannot
    be read at all; a :class:`TraceReadWarning` names the traces whose answer was doubted
    or that could not be read (counted in ``skipped`` / ``doubted``)."""
    if isinstance(where, str):  # one condition, not its characters
        where = [where]
    chosen = where if isinstance(where, TraceFilter) else TraceFilter.parse(where)
    query = TraceQuery(kind, project, since, mapping, chosen, seen)
    tally = TraceTally()
    found = _sorted(_samples(_traces(source, query, tally.skip), query, tally), tally)
    tally.warn(DOUBTFUL)
    return found


def streamed_samples(source: str | Path, query: TraceQuery, tally: TraceTally) -> Iterator[Sample]:
    """The samples of :func:`samples_from_traces`, one at a time as each trace is whole
    (a file's, in the order their last spans come), none held: for a source too large to
    keep. ``tally`` counts the traces left out and the samples doubted, by reason (no
    warning: the caller says them)."""
    return (sample for _, sample in _samples(_traces(source, query, tally.skip), query, tally))


def _traces(source: str | Path, query: TraceQuery, on_skip: OnSkip) -> Iterable[list[Span]]:
    if query.kind == "phoenix":
        return _grouped(read_phoenix_spans(str(source), query.project, since=query.since))
    if query.kind == "langfuse" and is_url(source):
        return _grouped(read_langfuse_api_spans(str(source), since=query.since))
    reader = read_langfuse_spans if query.kind == "langfuse" else read_spans
    # A file: read twice rather than held; what it skips is told on the second pass only.
    return _whole_traces(lambda: reader(source, None), lambda: reader(source, on_skip))


def _grouped(spans: Iterable[Span]) -> Iterable[list[Span]]:
    by_trace: dict[str, list[Span]] = defaultdict(list)
    for span in spans:
        by_trace[span.trace_id].append(span)
    return by_trace.values()


def _whole_traces(
    count: Callable[[], Iterable[Span]], read: Callable[[], Iterable[Span]]
) -> Iterator[list[Span]]:
    """Each trace's spans as soon as its last one is read, so that a file's traces are not
    all held at once: a first pass counts each trace's spans, the second holds only the
    traces still open. Spans a file gained between the passes (a collector still writing
    it) come with the open traces at the end, or, for a trace already given, are dropped."""
    counts = Counter(span.trace_id for span in count())
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
    traces: Iterable[list[Span]], query: TraceQuery, tally: TraceTally
) -> Iterator[tuple[int, Sample]]:
    """Each trace's sample with the trace's start; the traces left out counted."""
    for trace in traces:
        trace_id = trace[0].trace_id
        where = f"trace {trace_id[:64]}" + (f" ({trace[0].where})" if trace[0].where else "")
        if trace_id in query.seen:
            tally.skip(EVALUATED_BEFORE)
            continue
        problem = next((span.problem for span in trace if span.problem), None)
        if problem is not None:
            tally.skip(UNREADABLE_TRACE, f"{where}: {problem}")
            continue
        try:
            if not query.where.keeps(trace):
                tally.skip(FILTERED_OUT)
                continue
            made, doubt = read_trace(trace, query.mapping)
        except Exception as exc:  # one trace's data, never the whole source's end
            tally.skip(UNREADABLE_TRACE, f"{where}: {type(exc).__name__}: {str(exc)[:200]}")
            continue
        if isinstance(made, Sample):
            if doubt is not None:
                tally.doubt(doubt, where)
            yield min(span.start for span in trace), made
        else:  # a trace of no RAG request is common and fine: counted, not placed
            tally.skip(made, None if made == NOT_RAG else where)


def _sorted(samples: Iterable[tuple[int, Sample]], tally: TraceTally) -> TraceSamples:
    found = sorted(samples, key=lambda pair: pair[0])  # stable: ties keep their order
    return TraceSamples([sample for _, sample in found], tally.skipped, tally.doubted, tally)
