"""From raw rows to good labels and bad rows, in row order: each row read, then checked
against those before it (duplicates, groups, retractions).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from veracity.dataset.errors import RowError
from veracity.dataset.raw import RawRow
from veracity.labels.model import LabelRow
from veracity.labels.names import MISSING_ID
from veracity.labels.rows import ParsedRow, RowRules, parse_row
from veracity.labels.values import GradeWithoutScale, LabelProblem, show

_Position = tuple[int | None, int | None, int | None]  # a RawRow's line, item and row


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
    """Reads rows (``add_all``), each settled as it comes; ``finish`` gives the result."""

    def __init__(self, name: str, rules: RowRules) -> None:
        self.name, self.rules = name, rules
        # Where each (sample, system, target, annotator) was labelled, and each sample's
        # group given; not the rows themselves: a dataset row's contexts can be large.
        self._seen: dict[tuple[str, str | None, str, str | None], str] = {}
        self._located: dict[str, str] = {}
        self._out = Collected()

    def add_all(self, raw_rows: Iterable[RawRow]) -> None:
        for raw in raw_rows:
            self._out.rows += 1
            try:
                if raw.error is not None:
                    raise LabelProblem(raw.error)
                parsed = parse_row(raw.value, self.rules)
                for name, why in parsed.ignored.items():
                    self._out.ignored.setdefault(name, why)
                self._settle(parsed, RowError(self.name, raw.line, raw.item, "", raw.row).location)
            except LabelProblem as exc:
                self._note_grade(exc, (raw.line, raw.item, raw.row))
                self._out.bad_rows.append(
                    RowError(self.name, raw.line, raw.item, exc.message, raw.row)
                )

    def finish(self) -> Collected:
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

    def _settle(self, parsed: ParsedRow, location: str) -> None:
        if parsed.retracts:
            self._retract(parsed)
            return
        labels = parsed.labels
        if not labels:
            self._out.unlabelled += 1
            return
        if not parsed.keys:
            raise LabelProblem(MISSING_ID)
        seen, located = self._seen, self._located
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

    def _retract(self, parsed: ParsedRow) -> None:
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
        missing = [_describe(key) for key in keys if key not in self._seen]
        if missing:
            raise LabelProblem("retraction of no earlier label: " + "; ".join(missing))
        for key in keys:
            del self._seen[key]
        withdrawn = set(keys)
        self._out.labels[:] = [
            label
            for label in self._out.labels
            if (label.sample_id, label.system, label.target, label.annotator) not in withdrawn
        ]
        self._out.unlabelled += 1  # it gives no label of its own


def _describe(key: tuple[str, str | None, str, str | None]) -> str:
    sample_id, system, target, annotator = key
    parts = [f"id {show(sample_id)}"]
    if system is not None:
        parts.append(f"system {show(system)}")
    parts.append(f"target {target}")
    if annotator is not None:
        parts.append(f"annotator {show(annotator)}")
    return "(" + ", ".join(parts) + ")"
