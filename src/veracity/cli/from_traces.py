"""``veracity run --from otlp|phoenix|langfuse``: a trace source's RAG requests appended to
the run directory's dataset of traces, streamed (a source's samples are never all held),
the traces evaluated before left out, the rest drawn from with ``--sample``."""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from veracity.cli.common import cannot_write, err_console, fail
from veracity.config.traces import TraceMappingSpec

if TYPE_CHECKING:
    from veracity.traces import TraceQuery
    from veracity.traces.tally import TraceTally

__all__ = ["TRACE_SAMPLES", "TraceOptions", "samples_of_traces"]

TRACE_SAMPLES = "trace_samples.jsonl"


@dataclass(frozen=True)
class TraceOptions:
    """The command line's trace options, as given."""

    source: str
    project: str
    since: str | None
    filters: tuple[str, ...]
    sample: int | None
    seed: int


def since_of(given: str | None) -> datetime | None:
    """``--since``: a span of time back from now (``24h``, ``7d``, ``30m``) or a date."""
    from datetime import UTC, timedelta

    if given is None:
        return None
    m = re.fullmatch(r"\s*(\d+)\s*([smhd])\s*", given)
    if m is not None:
        unit = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}[m.group(2)]
        return datetime.now(UTC) - timedelta(**{unit: int(m.group(1))})
    try:
        found = datetime.fromisoformat(given.strip())
    except ValueError:
        raise ValueError(
            f"--since {given!r}: expected a span of time (24h, 7d, 30m) or a date (2026-11-01)"
        ) from None
    return found if found.tzinfo else found.replace(tzinfo=UTC)


def samples_of_traces(
    given: str, run_dir: Path, options: TraceOptions, mapping: TraceMappingSpec | None
) -> tuple[Path, dict[str, Any]]:
    """The RAG requests of ``given`` not evaluated into ``run_dir`` before, appended to the
    run directory's dataset of traces (so the run records them, resumes on them, reports
    their texts, and a later window's run judges only the new ones); what was skipped or
    doubted, said. Returns that dataset's path, and what the reading found (for the run's
    manifest: traces read, samples, skipped and doubted by reason)."""
    from veracity._suggest import one_of
    from veracity.store import write_text_atomic
    from veracity.traces import TRACE_SOURCES, TraceFilter, TraceQuery

    written = run_dir / TRACE_SAMPLES
    try:
        query = TraceQuery(
            kind=one_of(options.source, TRACE_SOURCES, "--from"), project=options.project,
            since=since_of(options.since), mapping=mapping.mapping() if mapping else None,
            where=TraceFilter.parse(options.filters), seen=_ids_in(written),
        )  # fmt: skip
    except ValueError as exc:
        raise fail(str(exc)) from exc
    try:
        # The new samples wait in a temporary file: a source that fails leaves no run
        # directory behind, and a run directory's dataset is only ever appended to whole.
        with tempfile.TemporaryFile("w+", encoding="utf-8") as new:
            found, tally = _stream_new(given, query, new)
            chosen = _drawn([system for _, system in found], options)
            new.seek(0)
            run_dir.mkdir(parents=True, exist_ok=True)
            with _appending(run_dir):
                # Another run may have appended since the ids were read: none twice.
                now = _ids_in(written)
                drawn = range(len(found)) if chosen is None else chosen
                kept = {i for i in drawn if found[i][0] not in now}
                write_text_atomic(written, _appended(written, new, kept))
    except OSError as exc:
        raise cannot_write(written, exc) from exc
    return written, {"source": options.source, **tally.as_json(len(found))}


@contextmanager
def _appending(run_dir: Path) -> Iterator[None]:
    """The run directory's lock while its dataset of traces grows: one run at a time."""
    from veracity.store.run_dir import RunDirectoryError, lock_run_directory

    try:
        lock = lock_run_directory(run_dir)
    except RunDirectoryError as exc:
        raise fail(str(exc)) from None
    try:
        yield
    finally:
        lock.release()


def _stream_new(
    given: str, query: TraceQuery, into: IO[str]
) -> tuple[list[tuple[str, str | None]], TraceTally]:
    """Write the source's new samples to ``into``, a line each; their ids and systems, in
    order, and what was skipped or doubted (said)."""
    from veracity.traces import TraceFileError, streamed_samples
    from veracity.traces.tally import TraceTally

    tally = TraceTally()
    found: list[tuple[str, str | None]] = []
    try:
        for sample in streamed_samples(given, query, tally):
            into.write(f"{sample.model_dump_json(exclude_defaults=True)}\n")
            found.append((sample.id, sample.system))
    except TraceFileError as exc:
        raise fail(str(exc)) from exc
    _say_read(given, len(found), tally)
    if not found and not query.seen:
        raise fail(f"no trace in {given} is a RAG request with an answer; nothing to evaluate")
    return found, tally


def _say_read(given: str, samples: int, tally: TraceTally) -> None:
    """How many traces became samples; each reason one was skipped, with where; each
    doubt about an answer read, as a warning."""
    from veracity.traces import UNREADABLE_LINE

    lines = tally.skipped[UNREADABLE_LINE]
    said = ", ".join(
        f"{reason}: {n}" for reason, n in tally.skipped.most_common() if reason != UNREADABLE_LINE
    )
    err_console.print(
        f"{samples + tally.traces_skipped} trace(s) in {given}: {samples} sample(s)"
        + (f", skipped ({said})" if said else "")
        + (f"; {lines} {UNREADABLE_LINE}(s) skipped" if lines else ""),
        highlight=False,
        markup=False,
    )
    for reason in tally.skipped:
        for place in tally.named(reason):
            err_console.print(f"  {reason}: {place}", highlight=False, markup=False)
    for doubt, n in tally.doubted.most_common():
        err_console.print(
            f"warning: {n} trace(s): {doubt}, so the answer is the last LLM call's output:",
            highlight=False,
            markup=False,
        )
        for place in tally.named(doubt):
            err_console.print(f"  {place}", highlight=False, markup=False)


def _drawn(systems: list[str | None], options: TraceOptions) -> set[int] | None:
    """The new samples ``--sample`` keeps (None: all)."""
    from veracity.traces.sampling import drawn_indices

    if options.sample is None:
        return None
    chosen = drawn_indices(systems, options.sample, options.seed)
    err_console.print(
        f"evaluating {len(chosen)} of them (--sample {options.sample}, --seed {options.seed})",
        highlight=False,
        markup=False,
    )
    return set(chosen)


def _appended(written: Path, new: IO[str], kept: set[int]) -> Iterator[str]:
    """The dataset of traces so far, line by line, then the new samples kept."""
    try:
        with written.open("rb") as before:
            for raw in before:
                yield raw.decode("utf-8")
    except FileNotFoundError:
        pass
    for index, line in enumerate(new):
        if index in kept:
            yield line


def _ids_in(written: Path) -> set[str]:
    """The sample (trace) ids of the run directory's dataset of traces so far."""
    ids: set[str] = set()
    try:
        with written.open("rb") as lines:
            for line in lines:
                try:
                    row = json.loads(line)
                except ValueError:
                    continue  # a damaged line is the dataset reader's to report
                if isinstance(row, dict) and isinstance(row.get("id"), str):
                    ids.add(row["id"])
    except FileNotFoundError:
        return ids
    except OSError as exc:
        raise fail(
            f"{written}: cannot read the traces this run directory evaluated before ({exc}); "
            "choose a new --out directory"
        ) from exc
    return ids
