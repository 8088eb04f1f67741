"""How far annotators agree with each other: raw agreement and mean pairwise Cohen's kappa
(scikit-learn's; quadratic-weighted for grades). Votes without an annotator name count as
one unnamed annotator."""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Final

from veracity.labels.model import InterAnnotator, ItemLabel
from veracity.labels.scale import LabelKind, Scale

#: Annotator pairs over all items past which kappa is not computed (``None``): an item
#: labelled by thousands of people would otherwise cost millions of pairs.
PAIR_LIMIT: Final = 2_000_000


def cohen_kappa(
    first: Sequence[float], second: Sequence[float], *, quadratic: bool
) -> float | None:
    """Cohen's kappa of two raters' labels of the same items; ``None`` when undefined
    (the chance agreement is total: both raters always gave one same label)."""
    from sklearn.metrics import cohen_kappa_score

    # As ranks: scikit-learn takes categories, not fractions, and its quadratic weights are
    # the squared distance between the categories' positions in sorted order.
    ranks = {value: rank for rank, value in enumerate(sorted(set(first) | set(second)))}
    with warnings.catch_warnings():  # an undefined kappa is NaN with a warning: None here
        warnings.simplefilter("ignore")
        kappa = float(
            cohen_kappa_score(
                [ranks[v] for v in first],
                [ranks[v] for v in second],
                weights="quadratic" if quadratic else None,
            )
        )
    return None if math.isnan(kappa) else kappa


def _category(scale: Scale) -> Callable[[float], float]:
    """What two votes must share to agree: the value of a grade, else the yes/no."""
    if scale.kind is LabelKind.GRADE:
        return lambda value: value
    return scale.positive


def _annotator_order(vote: tuple[str | None, float]) -> tuple[bool, str]:
    return vote[0] is not None, vote[0] or ""


def inter_annotator(target: str, scale: Scale, items: Sequence[ItemLabel]) -> InterAnnotator | None:
    """The agreement between the annotators of one target; ``None`` with fewer than two."""
    annotators = {annotator for item in items for annotator, _value in item.votes}
    if len(annotators) < 2:
        return None
    category = _category(scale)
    shared = [item for item in items if len(item.votes) >= 2]
    agreeing = pairs_on_items = 0
    for item in shared:
        k = len(item.votes)
        pairs_on_items += k * (k - 1) // 2
        counts = Counter(category(value) for _annotator, value in item.votes)
        agreeing += sum(c * (c - 1) // 2 for c in counts.values())
    raw = agreeing / pairs_on_items if pairs_on_items else None
    kappa, pairs = (None, 0)
    if pairs_on_items <= PAIR_LIMIT:
        kappa, pairs = _mean_kappa(shared, category, quadratic=scale.kind is LabelKind.GRADE)
    return InterAnnotator(target, len(annotators), len(shared), raw, kappa, pairs)


def _mean_kappa(
    shared: Sequence[ItemLabel], category: Callable[[float], float], *, quadratic: bool
) -> tuple[float | None, int]:
    """The mean kappa over annotator pairs sharing at least two items, and how many."""
    by_pair: dict[tuple[str | None, str | None], tuple[list[float], list[float]]] = {}
    for item in shared:
        votes = sorted(item.votes, key=_annotator_order)
        for i, (first, first_value) in enumerate(votes):
            for second, second_value in votes[i + 1 :]:
                a, b = by_pair.setdefault((first, second), ([], []))
                a.append(category(first_value))
                b.append(category(second_value))
    kappas = [
        kappa
        for a, b in by_pair.values()
        if len(a) >= 2 and (kappa := cohen_kappa(a, b, quadratic=quadratic)) is not None
    ]
    return (sum(kappas) / len(kappas) if kappas else None), len(kappas)
