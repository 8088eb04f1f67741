"""Pairing a run's results with people's labels of the same samples.

A label names a target: a metric (``faithfulness``, ``rubric:clarity``) or
``correctness``, which every metric that scores an answer against its reference is
measured by. A result pairs with the label of its sample id and system; a label given
without a system pairs with the sample's only system, and is ambiguous (counted, not
used) where several systems answered that sample. Over several iterations an item's
score is the mean of its scored iterations. Nothing is dropped silently: unscored
results, labels without a result and ambiguous labels are counted.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from veracity.labels import ItemLabel, LabelSet, Scale
from veracity.labels.values import show
from veracity.metrics.registry import metrics_of_target
from veracity.types import ResultRecord


@dataclass(frozen=True, slots=True)
class Pair:
    """One labelled item of one metric: its score (the mean over scored iterations), the
    results behind it and the people's label."""

    score: float
    records: tuple[ResultRecord, ...]
    label: ItemLabel
    #: The mean calibrated probability of the scored results, where each has one (a run
    #: with ``--calibration``); ``None`` otherwise.
    calibrated: float | None = None

    @property
    def sample_id(self) -> str:
        return self.records[0].sample_id

    @property
    def system(self) -> str | None:
        return self.records[0].system


@dataclass(slots=True)
class Joined:
    """One metric's results paired with one target's labels."""

    metric: str
    target: str
    scale: Scale
    pairs: list[Pair] = field(default_factory=list)
    # Labelled items whose results all lack a score, by the status of their first result.
    unscored: Counter[str] = field(default_factory=Counter)
    without_result: int = 0
    #: The first few ids of labels without a result, for a message.
    missing_ids: list[str] = field(default_factory=list)
    ambiguous: int = 0

    def systems(self) -> list[str | None]:
        return sorted({p.system for p in self.pairs}, key=lambda s: (s is not None, s or ""))


_Index = dict[tuple[str, str], dict[str | None, list[ResultRecord]]]


@dataclass(slots=True)
class _Run:
    """What one pass over a run's results gives: the labelled samples' results by (sample
    id, metric) and system, every metric the run has, and the ids and systems of the
    labelled metrics' results, in order (for a message when the labels name none)."""

    index: _Index
    metrics: set[str] = field(default_factory=set)
    ids: dict[str, None] = field(default_factory=dict)
    systems: dict[str | None, None] = field(default_factory=dict)


def _index(records: Iterable[ResultRecord], ids: set[str], metrics: set[str]) -> _Run:
    run = _Run(defaultdict(lambda: defaultdict(list)))
    for record in records:
        run.metrics.add(record.metric)
        if record.metric not in metrics:
            continue
        run.ids.setdefault(record.sample_id)
        run.systems.setdefault(record.system)
        if record.sample_id in ids:
            run.index[(record.sample_id, record.metric)][record.system].append(record)
    return run


class NoSharedItems(ValueError):
    """The labels name no sample (or no system) the run scored: nothing can be paired."""


#: How many ids (or systems) of each side a message shows.
SHOWN_IDS = 3


def _shown(names: Iterable[str | None]) -> str:
    """The first few names, quoted (escaped: they come from files), then how many."""
    listed = list(names)
    shown = ", ".join("none" if n is None else show(n) for n in listed[:SHOWN_IDS])
    return shown + (f", … ({len(listed)} in all)" if len(listed) > SHOWN_IDS else "")


def _no_shared_items(labels: LabelSet, run: _Run, metrics: Sequence[str]) -> str:
    measured = ", ".join(metrics)
    if not run.index:
        label_ids = dict.fromkeys(item.sample_id for item in labels.items)
        return (
            f"none of the {len(label_ids)} labelled sample id(s) is a sample the run scored "
            f"for {measured} (labels: {_shown(label_ids)}; run: {_shown(run.ids)}): the "
            "labels are keyed by other ids than the run's dataset (a row without an id "
            "gets a hash of its content as its id: see the run's results.jsonl)"
        )
    label_systems = dict.fromkeys(item.system for item in labels.items)
    if list(run.systems) == [None]:
        theirs = "the run's samples name no system: leave it out of the labels"
    else:
        theirs = (
            f"run: {_shown(run.systems)}: label each item's system as the dataset names "
            "it, or leave it out where one system answered"
        )
    return (
        f"the labelled samples are in the run, but under other systems (labels: "
        f"{_shown(label_systems)}; {theirs})"
    )


def join(records: Iterable[ResultRecord], labels: LabelSet) -> list[Joined]:
    """Every (metric, target) that both the run and the labels have, in label order.

    ``NoSharedItems`` when the run has a metric the labels judge but no label names a
    sample (and system) it scored: saying so beats an empty table."""
    wanted = {m for t in labels.targets() for m in metrics_of_target(t)}
    ids = {item.sample_id for item in labels.items}
    run = _index(records, ids, wanted)
    joined: list[Joined] = []
    for target in labels.targets():
        for metric in metrics_of_target(target):
            if metric not in run.metrics:
                continue
            one = Joined(metric, target, labels.scales[target])
            for item in labels.for_target(target):
                _pair(one, item, run.index.get((item.sample_id, metric), {}))
            joined.append(one)
    if joined and not any(j.pairs or j.unscored or j.ambiguous for j in joined):
        raise NoSharedItems(_no_shared_items(labels, run, [j.metric for j in joined]))
    return joined


def _pair(
    joined: Joined, item: ItemLabel, systems: Mapping[str | None, Sequence[ResultRecord]]
) -> None:
    if item.system is not None or None in systems:
        records = systems.get(item.system, ())
    elif len(systems) == 1:
        records = next(iter(systems.values()))
    elif systems:
        joined.ambiguous += 1
        return
    else:
        records = ()
    if not records:
        joined.without_result += 1
        if len(joined.missing_ids) < SHOWN_IDS:
            joined.missing_ids.append(item.sample_id)
        return
    scored = [r for r in records if r.score is not None]
    if not scored:
        joined.unscored[records[0].status.value] += 1
        return
    ordered = tuple(sorted(records, key=lambda r: r.iteration))
    score = statistics.fmean(r.score for r in scored if r.score is not None)
    probabilities = [r.calibrated for r in scored if r.calibrated is not None]
    calibrated = statistics.fmean(probabilities) if len(probabilities) == len(scored) else None
    joined.pairs.append(Pair(score, ordered, item, calibrated))


def targets_without_metric(labels: LabelSet, joined: Sequence[Joined]) -> list[str]:
    """Label targets that no metric of the run measures."""
    used = {j.target for j in joined}
    return [t for t in labels.targets() if t not in used]
