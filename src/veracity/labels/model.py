"""What reading labels gives: each label as read, each item's aggregated label, how far
the people agree with each other, and the whole set."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from veracity.dataset.errors import RowError
from veracity.labels.scale import Scale


@dataclass(frozen=True, slots=True)
class LabelRow:
    """One label as read: one target of one row (a row labelling two targets gives two).
    ``location`` is where the row is, e.g. ``labels.jsonl:17``."""

    sample_id: str
    system: str | None
    target: str
    value: float
    annotator: str | None
    group: str | None
    location: str
    #: How the item was chosen for labelling (``order`` field), e.g. ``random``.
    order: str | None = None


@dataclass(frozen=True, slots=True)
class ItemLabel:
    """One (sample, system, target) with all its annotators' votes, in reading order.

    ``value``: for a binary target the majority (1.0 or 0.0; 0.5 on a tie), for a grade
    the median, for a probability the mean. ``positive`` is ``None`` on a binary tie: such
    items are counted but left out of binary figures.
    """

    sample_id: str
    system: str | None
    target: str
    value: float
    positive: bool | None
    votes: tuple[tuple[str | None, float], ...]
    group: str | None


@dataclass(frozen=True, slots=True)
class InterAnnotator:
    """How far the people agree with each other on one target: the ceiling for a judge.

    ``items``: items with at least two votes. ``raw_agreement``: the share of annotator
    pairs on the same item that agree (binary and probability: both positive or both
    not; grade: the same value). ``kappa``: the mean Cohen's kappa (quadratic-weighted
    for grades) over the ``pairs`` of annotators that share at least two items and whose
    kappa is defined; ``None`` when no pair qualifies.
    """

    target: str
    annotators: int
    items: int
    raw_agreement: float | None
    kappa: float | None
    pairs: int


@dataclass(frozen=True)
class LabelSet:
    """The labels of one source. ``rows``: rows read (blank lines aside), each of which is
    either bad (``bad_rows``), ``unlabelled`` (it names no label) or gave labels.
    ``ignored``: fields that looked like labels but were not read, with why (e.g. a grade
    column with no declared scale), for the reader to be told. ``labels``: every good
    label as read, located (the votes of ``items``, in reading order)."""

    source: str
    items: tuple[ItemLabel, ...]
    scales: Mapping[str, Scale]
    bad_rows: tuple[RowError, ...]
    inter_annotator: Mapping[str, InterAnnotator]
    rows: int
    unlabelled: int = 0
    ignored: Mapping[str, str] = field(default_factory=dict)
    labels: tuple[LabelRow, ...] = ()
    _by_target: dict[str, tuple[ItemLabel, ...]] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        grouped: dict[str, list[ItemLabel]] = {}
        for item in self.items:
            grouped.setdefault(item.target, []).append(item)
        self._by_target.update((target, tuple(items)) for target, items in grouped.items())

    def targets(self) -> tuple[str, ...]:
        """The targets labelled, in the order they first appear."""
        return tuple(self._by_target)

    def non_random_orders(self) -> dict[str, int]:
        """How many labels were given to items chosen other than at random (``order`` of
        ``uncertain``, ``worst``…), by order: figures over them are not an unbiased
        estimate of agreement. Labels without an order are not counted."""
        counts: dict[str, int] = {}
        for label in self.labels:
            if label.order is not None and label.order != "random":
                counts[label.order] = counts.get(label.order, 0) + 1
        return counts

    def for_target(self, target: str) -> tuple[ItemLabel, ...]:
        """The items of one target (none for a target not labelled)."""
        return self._by_target.get(target, ())


class LabelError(Exception):
    """A problem with the whole source: it is missing, of an unknown kind, unreadable, or
    holds no usable label. ``bad_rows`` are the rows' problems when every row was bad."""

    def __init__(self, message: str, bad_rows: Sequence[RowError] = ()) -> None:
        super().__init__(message)
        self.bad_rows = tuple(bad_rows)
