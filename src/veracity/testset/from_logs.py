"""``veracity testset from-logs``: production query logs into a test set.

Rows are read one at a time. De-duplication remembers an 8-byte digest per question, and
sampling keeps at most ``sample`` candidate rows per stratum, so a log of millions of rows
is never held in memory.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from veracity.dataset import RowError
from veracity.dataset.ids import sample_key_digest
from veracity.testset.defaults import DEFAULT_MAX_CHARS
from veracity.testset.keys import question_digest, seeded_priority
from veracity.testset.logs import LogRow, RowCounter, read_log
from veracity.testset.output import write_jsonl
from veracity.testset.sampling import BottomK, Ranked, allocate
from veracity.types import Sample

#: The stratum of a row without a value for the ``stratify`` field.
MISSING_STRATUM = "(none)"
#: How many bad, filtered and duplicate rows a report keeps to show (all are counted).
KEPT_EXAMPLES = 100


@dataclass
class StratumCount:
    eligible: int = 0
    written: int = 0


@dataclass
class FromLogsReport:
    """What ``from-logs`` read, dropped (and why) and wrote."""

    path: str
    out: str
    sample: int | None
    stratify: str | None
    seed: int
    rows: int = 0
    bad_rows: int = 0
    duplicates: int = 0
    filtered: Counter[str] = field(default_factory=Counter)
    eligible: int = 0
    written: int = 0
    strata: dict[str, StratumCount] = field(default_factory=dict)
    bad: list[RowError] = field(default_factory=list)
    dropped: list[RowError] = field(default_factory=list)

    def _keep(self, examples: list[RowError], row: RowError) -> None:
        if len(examples) < KEPT_EXAMPLES:
            examples.append(row)


def stratum_of(sample: Sample, field_name: str) -> str:
    """The stratum of a sample: its ``question_type``, ``system`` or a metadata value
    (``metadata.KEY`` or just ``KEY``); :data:`MISSING_STRATUM` when it has none."""
    if field_name == "question_type":
        value: object = sample.question_type
    elif field_name == "system":
        value = sample.system
    else:
        value = sample.metadata.get(field_name.removeprefix("metadata."))
    if value is None or value == "":
        return MISSING_STRATUM
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _too_long(sample: Sample, max_chars: int) -> int | None:
    size = len(sample.question) + len(sample.answer) + sum(len(c) for c in sample.contexts)
    return size if size > max_chars else None


def _eligible(
    rows: Iterable[LogRow | RowError], report: FromLogsReport, max_chars: int
) -> Iterator[tuple[LogRow, int]]:
    """The rows that go on to sampling, with their question digest; the others counted."""
    questions: dict[int, int] = {}  # question digest -> position of its first row
    ids: dict[int, int] = {}  # id digest -> position of its row
    for row in rows:
        if isinstance(row, RowError):
            report.bad_rows += 1
            report._keep(report.bad, row)
            continue
        sample = row.sample
        reason = message = None
        if not sample.question.strip():
            reason, message = "empty_question", "filtered: the question is empty"
        elif not sample.answer.strip():
            reason, message = "empty_answer", "filtered: the answer is empty"
        elif (size := _too_long(sample, max_chars)) is not None:
            reason = "too_long"
            message = (
                f"filtered: question, answer and contexts are {size:,} characters "
                f"(over --max-chars {max_chars:,})"
            )
        if reason is not None and message is not None:
            report.filtered[reason] += 1
            report._keep(report.dropped, row.problem(message))
            continue
        unit = "line" if row.line is not None else "item"
        digest = question_digest(sample.question, [turn.content for turn in sample.history])
        if (first := questions.get(digest)) is not None:
            report.duplicates += 1
            report._keep(report.dropped, row.problem(f"duplicate question of {unit} {first}"))
            continue
        id_key = sample_key_digest(sample.id, None)
        if (other := ids.get(id_key)) is not None:
            report.bad_rows += 1
            problem = f"id {sample.id!r} is also the id of {unit} {other}, a different question"
            report._keep(report.bad, row.problem(problem))
            continue
        questions[digest] = ids[id_key] = row.position
        report.eligible += 1
        yield row, digest


def _with_source(row: LogRow) -> Sample:
    where = {"source_line": row.line} if row.line is not None else {"source_item": row.item}
    metadata = {**row.sample.metadata, "source_file": Path(row.path).name, **where}
    return row.sample.model_copy(update={"metadata": metadata})


def logs_to_testset(
    logs: str | Path,
    out: str | Path,
    *,
    sample: int | None = None,
    stratify: str | None = None,
    seed: int = 0,
    max_chars: int = DEFAULT_MAX_CHARS,
) -> FromLogsReport:
    """Turn a query log into a test set at ``out`` (veracity's JSONL) and say what it did.

    Bad rows are counted (with file and line); rows with an empty question or answer, or
    longer than ``max_chars`` (question + answer + contexts), are filtered; repeated
    questions (compared case-folded, punctuation and spacing collapsed) keep their first
    row. With ``sample``, that many rows are drawn: those of lowest seeded rank, which
    depends on the question and ``seed`` only, so the same seed gives the same test set
    (in whatever order the log lists its rows). With ``stratify`` the draw is allocated
    across the field's values in proportion to their sizes, at least one each when
    ``sample`` allows. Rows are written in log order; ``metadata`` gains ``source_file``
    and ``source_line`` (``source_item`` in a JSON array). Raises ``DatasetError`` for a
    missing or unreadable log, ``ValueError`` for bad arguments.
    """
    if sample is not None and sample < 1:
        raise ValueError(f"sample must be at least 1, got {sample}")
    if max_chars < 1:
        raise ValueError(f"max_chars must be at least 1, got {max_chars}")
    report = FromLogsReport(str(logs), str(out), sample, stratify, seed)
    counter = RowCounter()
    eligible = _eligible(read_log(logs, counter), report, max_chars)

    def stratum(row: LogRow) -> str:
        return stratum_of(row.sample, stratify) if stratify else ""

    if sample is None:

        def everything() -> Iterator[Sample]:
            for row, _digest in eligible:
                count = report.strata.setdefault(stratum(row), StratumCount())
                count.eligible += 1
                count.written += 1
                yield _with_source(row)

        report.written = write_jsonl(out, everything())
    else:
        pools: dict[str, BottomK[LogRow]] = {}
        for row, digest in eligible:
            pool = pools.setdefault(stratum(row), BottomK(sample))
            pool.offer(Ranked(seeded_priority(seed, digest), digest, row))
        quotas = allocate({name: pool.seen for name, pool in pools.items()}, sample)
        chosen: list[LogRow] = []
        for name, pool in pools.items():
            picked = [ranked.value for ranked in pool.lowest(quotas[name])]
            report.strata[name] = StratumCount(eligible=pool.seen, written=len(picked))
            chosen.extend(picked)
        chosen.sort(key=lambda row: row.position)
        report.written = write_jsonl(out, (_with_source(row) for row in chosen))
    report.rows = counter.rows
    if not stratify:
        report.strata = {}
    return report
