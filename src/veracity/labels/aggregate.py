"""Good labels into items: each target's kind, then one ``ItemLabel`` per (sample, system,
target) with its annotators' votes combined."""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence

from veracity.labels.agreement import inter_annotator
from veracity.labels.model import InterAnnotator, ItemLabel, LabelRow
from veracity.labels.scale import BINARY, PROBABILITY, LabelKind, Scale

_Key = tuple[str, str | None, str]


def infer_scales(labels: Sequence[LabelRow], declared: Mapping[str, Scale]) -> dict[str, Scale]:
    """Each labelled target's scale: the declared one; else binary when every value is 0
    or 1, else a probability (values outside 0–1 were bad rows already)."""
    scales: dict[str, Scale] = {}
    for label in labels:
        target = label.target
        if target not in scales:
            scales[target] = declared.get(target, BINARY)
        if scales[target] is BINARY and target not in declared and label.value not in (0.0, 1.0):
            scales[target] = PROBABILITY
    return scales


def _combined(scale: Scale, values: Sequence[float]) -> tuple[float, bool | None]:
    """An item's value and whether it is positive, from its votes."""
    if scale.kind is LabelKind.BINARY:
        yes = sum(1 for value in values if value == 1.0)
        no = len(values) - yes
        if yes == no:
            return 0.5, None  # a tie: no majority to compare a judge with
        return (1.0, True) if yes > no else (0.0, False)
    if scale.kind is LabelKind.GRADE:
        value = float(statistics.median(values))
    else:
        value = math.fsum(values) / len(values)
    return value, scale.positive(value)


def build_items(
    labels: Sequence[LabelRow], scales: Mapping[str, Scale], groups: Mapping[str, str]
) -> tuple[ItemLabel, ...]:
    """One item per (sample, system, target), in the order each first appears."""
    votes: dict[_Key, list[tuple[str | None, float]]] = {}
    for label in labels:
        key = (label.sample_id, label.system, label.target)
        votes.setdefault(key, []).append((label.annotator, label.value))
    items = []
    for (sample_id, system, target), item_votes in votes.items():
        value, positive = _combined(scales[target], [value for _a, value in item_votes])
        group = groups.get(sample_id)
        items.append(
            ItemLabel(sample_id, system, target, value, positive, tuple(item_votes), group)
        )
    return tuple(items)


def agreement(items: Sequence[ItemLabel], scales: Mapping[str, Scale]) -> dict[str, InterAnnotator]:
    """The inter-annotator agreement of each target labelled by two annotators or more."""
    by_target: dict[str, list[ItemLabel]] = {}
    for item in items:
        by_target.setdefault(item.target, []).append(item)
    found = {
        target: inter_annotator(target, scales[target], target_items)
        for target, target_items in by_target.items()
    }
    return {target: ia for target, ia in found.items() if ia is not None}
