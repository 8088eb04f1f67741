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
from veracity.types import ResultRecord

# The metrics a "correctness" label measures: each scores the answer against a reference.
CORRECTNESS_METRICS = (
    "answer_classification",
    "factual_accuracy",
    "semantic_similarity",
    "bert_score",
)


def metrics_of_target(target: str) -> tuple[str, ...]:
    """The metrics a label of ``target`` judges."""
    return CORRECTNESS_METRICS if target == "correctness" else (target,)


@dataclass(frozen=True, slots=True)
class Pair:
    """One labelled item of one metric: its score (the mean over scored iterations), the
    results behind it and the people's label."""

    score: float
    records: tuple[ResultRecord, ...]
    label: ItemLabel

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
    ambiguous: int = 0

    def systems(self) -> list[str | None]:
        return sorted({p.system for p in self.pairs}, key=lambda s: (s is not None, s or ""))


def _index(
    records: Iterable[ResultRecord], ids: set[str], metrics: set[str]
) -> dict[tuple[str, str], dict[str | None, list[ResultRecord]]]:
    """(sample id, metric) → system → its results, for labelled samples only."""
    found: dict[tuple[str, str], dict[str | None, list[ResultRecord]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for record in records:
        if record.sample_id in ids and record.metric in metrics:
            found[(record.sample_id, record.metric)][record.system].append(record)
    return found


def join(records: Iterable[ResultRecord], labels: LabelSet) -> list[Joined]:
    """Every (metric, target) that both the run and the labels have, in label order."""
    wanted = {m for t in labels.targets() for m in metrics_of_target(t)}
    ids = {item.sample_id for item in labels.items}
    index = _index(records, ids, wanted)
    present = {metric for _, metric in index}
    joined: list[Joined] = []
    for target in labels.targets():
        for metric in metrics_of_target(target):
            if metric not in present:
                continue
            one = Joined(metric, target, labels.scales[target])
            for item in labels.for_target(target):
                _pair(one, item, index.get((item.sample_id, metric), {}))
            joined.append(one)
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
        return
    scores = [r.score for r in records if r.score is not None]
    if not scores:
        joined.unscored[records[0].status.value] += 1
        return
    ordered = tuple(sorted(records, key=lambda r: r.iteration))
    joined.pairs.append(Pair(statistics.fmean(scores), ordered, item))


def targets_without_metric(labels: LabelSet, joined: Sequence[Joined]) -> list[str]:
    """Label targets that no metric of the run measures."""
    used = {j.target for j in joined}
    return [t for t in labels.targets() if t not in used]
