"""From raw rows to good labels and bad rows, in two passes.

The first pass reads each row. Only then is it known which unknown columns of a pure
labels file hold labels (most of their values read as labels) and which are notes or
timings; the second pass reads those, and checks duplicates and groups in row order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from veracity.dataset.errors import RowError
from veracity.dataset.raw import RawRow
from veracity.labels.model import LabelRow
from veracity.labels.names import MISSING_ID, target_name
from veracity.labels.rows import ParsedRow, RowRules, TooLong, parse_row
from veracity.labels.values import (
    EXPECTED,
    GradeWithoutScale,
    LabelProblem,
    NotALabel,
    checked_label,
    grade_hint,
    read_label,
    show,
    unit_label,
)

_Position = tuple[int | None, int | None, int | None]  # a RawRow's line, item and row


@dataclass(slots=True)
class _Column:
    """How an unknown column's values read: as 0–1 labels, or not; the largest number."""

    labels: int = 0
    others: int = 0
    top: float | None = None

    def count(self, value: object) -> None:
        unit = unit_label(value)
        if unit is None:
            return
        if unit:
            self.labels += 1
            return
        self.others += 1
        vote = None if isinstance(value, TooLong) else _number(value)
        if vote is not None:
            self.top = vote if self.top is None else max(self.top, vote)

    @property
    def is_labels(self) -> bool:
        return self.labels > self.others


def _number(value: object) -> float | None:
    try:
        vote = read_label(value)
    except NotALabel:
        return None
    return None if vote is None or not vote.numeric else vote.value


@dataclass(slots=True)
class Graded:
    """Numbers outside 0–1 given to a target with no declared scale: how many, their
    range, and where the first is."""

    count: int
    lowest: float
    highest: float
    first: str  # where the first is, e.g. labels.jsonl:3


@dataclass
class Collected:
    """The good labels in reading order, the bad rows, and the counts."""

    labels: list[LabelRow] = field(default_factory=list)
    bad_rows: list[RowError] = field(default_factory=list)
    rows: int = 0
    unlabelled: int = 0
    ignored: dict[str, str] = field(default_factory=dict)
    #: The group of each sample id, from the first row that names one.
    groups: dict[str, str] = field(default_factory=dict)
    #: Targets given numbers outside 0–1 without a declared scale (an error of the source).
    graded: dict[str, Graded] = field(default_factory=dict)


class Collector:
    """Reads rows (``add``), then settles them (``finish``)."""

    def __init__(self, name: str, rules: RowRules) -> None:
        self.name, self.rules = name, rules
        # Each row's position and what it gave; not the row itself: a dataset row's
        # contexts can be large, and only the labels are kept.
        self._pending: list[tuple[_Position, ParsedRow | str]] = []
        self._columns: dict[str, _Column] = {}
        self._out = Collected()

    def add_all(self, raw_rows: Iterable[RawRow]) -> None:
        for raw in raw_rows:
            self._out.rows += 1
            position = (raw.line, raw.item, raw.row)
            if raw.error is not None:
                self._pending.append((position, raw.error))
                continue
            try:
                parsed = parse_row(raw.value, self.rules)
            except LabelProblem as exc:
                self._note_grade(exc, position)
                self._pending.append((position, exc.message))
                continue
            for name in parsed.ignored:
                self._out.ignored.setdefault(name, _NOT_A_METRIC.format(name=name[6:]))
            if not parsed.labels and not parsed.candidates and not parsed.retracts:
                self._out.unlabelled += 1
                continue
            for column, value in parsed.candidates.items():
                self._columns.setdefault(column, _Column()).count(value)
            self._pending.append((position, parsed))

    def finish(self) -> Collected:
        taken = {c for c, votes in self._columns.items() if votes.is_labels}
        for column, votes in self._columns.items():
            if column not in taken:
                self._out.ignored[column] = _why_not(column, votes)
        seen: dict[tuple[str, str | None, str, str | None], str] = {}
        located: dict[str, str] = {}  # sample id -> where its group was given
        for (line, item, row), parsed in self._pending:
            try:
                if isinstance(parsed, str):
                    raise LabelProblem(parsed)
                location = RowError(self.name, line, item, "", row).location
                self._settle(parsed, taken, location, seen, located)
            except LabelProblem as exc:
                self._note_grade(exc, (line, item, row))
                self._out.bad_rows.append(RowError(self.name, line, item, exc.message, row))
        self._pending.clear()
        return self._out

    def _note_grade(self, problem: LabelProblem, position: _Position) -> None:
        if not isinstance(problem, GradeWithoutScale):
            return
        value, found = problem.value, self._out.graded.get(problem.target)
        if found is None:
            line, item, row = position
            first = RowError(self.name, line, item, "", row).location
            self._out.graded[problem.target] = Graded(1, value, value, first)
        else:
            found.count += 1
            found.lowest, found.highest = min(found.lowest, value), max(found.highest, value)

    def _settle(
        self,
        parsed: ParsedRow,
        taken: set[str],
        location: str,
        seen: dict[tuple[str, str | None, str, str | None], str],
        located: dict[str, str],
    ) -> None:
        if parsed.retracts:
            self._retract(parsed, seen)
            return
        labels = dict(parsed.labels)
        for column, value in parsed.candidates.items():
            if column in taken:
                _add_candidate(labels, column, value)
        if not labels:
            self._out.unlabelled += 1
            return
        if not parsed.keys:
            raise LabelProblem(MISSING_ID)
        groups = self._out.groups
        if parsed.group is not None:
            for sample_id, _system in parsed.keys:
                first = groups.get(sample_id)
                if first is not None and first != parsed.group:
                    raise LabelProblem(
                        f"group {show(parsed.group)} differs from group {show(first)} "
                        f"given for id {show(sample_id)} at {located[sample_id]}"
                    )
        keys = [
            (sample_id, system, target, parsed.annotator)
            for sample_id, system in parsed.keys
            for target in labels
        ]
        duplicates = [f"{_describe(key)} first at {seen[key]}" for key in keys if key in seen]
        if duplicates:
            raise LabelProblem("duplicate label: " + "; ".join(duplicates))
        for key in keys:
            seen[key] = location
        for sample_id, system in parsed.keys:
            if parsed.group is not None and sample_id not in groups:
                groups[sample_id], located[sample_id] = parsed.group, location
            self._out.labels.extend(
                LabelRow(
                    sample_id,
                    system,
                    target,
                    value,
                    parsed.annotator,
                    parsed.group,
                    location,
                    parsed.order,
                )
                for target, (value, _field) in labels.items()
            )

    def _retract(
        self,
        parsed: ParsedRow,
        seen: dict[tuple[str, str | None, str, str | None], str],
    ) -> None:
        """Withdraw the annotator's earlier label of each key: an undo. The label after it,
        if any, is then the annotator's answer (no duplicate), so the file's last word
        per (annotator, item) is what is read."""
        if not parsed.keys:
            raise LabelProblem(MISSING_ID)
        keys = [
            (sample_id, system, target, parsed.annotator)
            for sample_id, system in parsed.keys
            for target in parsed.retracts
        ]
        missing = [_describe(key) for key in keys if key not in seen]
        if missing:
            raise LabelProblem("retraction of no earlier label: " + "; ".join(missing))
        for key in keys:
            del seen[key]
        withdrawn = set(keys)
        self._out.labels[:] = [
            label
            for label in self._out.labels
            if (label.sample_id, label.system, label.target, label.annotator) not in withdrawn
        ]
        self._out.unlabelled += 1  # it gives no label of its own


_NOT_A_METRIC = "not a known metric: declare its scale to read it, e.g. --scale {name}=binary"


def _why_not(column: str, votes: _Column) -> str:
    if votes.top is not None and votes.top > 1:
        hint = grade_hint(target_name(column), votes.top)
        return f"numbers outside 0–1: declare its scale to read it, e.g. {hint}"
    return f"mostly not labels ({EXPECTED})"


def _add_candidate(labels: dict[str, tuple[float, str]], column: str, value: object) -> None:
    target = target_name(column)
    if isinstance(value, TooLong):
        raise LabelProblem(
            f"field {show(column)}: {value.shown} is not a label (expected {EXPECTED})"
        )
    checked = checked_label(column, value, target, None)
    if checked is None:
        return
    first = labels.setdefault(target, (checked, column))
    if first[0] != checked:
        raise LabelProblem(
            f"fields {show(first[1])} and {show(column)} both label {target} but differ"
        )


def _describe(key: tuple[str, str | None, str, str | None]) -> str:
    sample_id, system, target, annotator = key
    parts = [f"id {show(sample_id)}"]
    if system is not None:
        parts.append(f"system {show(system)}")
    parts.append(f"target {target}")
    if annotator is not None:
        parts.append(f"annotator {show(annotator)}")
    return "(" + ", ".join(parts) + ")"
