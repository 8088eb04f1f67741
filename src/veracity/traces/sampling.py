"""Drawing a share of production to evaluate: reproducibly, and in proportion to each
system's traffic."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence

from veracity.types import Sample

__all__ = ["drawn", "drawn_indices"]


def drawn(samples: Sequence[Sample], n: int, seed: int = 0) -> list[Sample]:
    """``n`` of ``samples`` (all of them when there are no more), drawn with ``seed``: each
    system gets its share of ``n`` (largest remainders first, names breaking ties), its
    samples chosen at random; kept in their order."""
    return [samples[i] for i in drawn_indices([s.system for s in samples], n, seed)]


def drawn_indices(systems: Sequence[str | None], n: int, seed: int = 0) -> list[int]:
    """Which of the samples whose systems are ``systems`` :func:`drawn` keeps, in order."""
    if n >= len(systems):
        return list(range(len(systems)))
    by_system: dict[str, list[int]] = defaultdict(list)
    for index, system in enumerate(systems):
        by_system[system or ""].append(index)
    names = sorted(by_system)
    quotas = {s: n * len(by_system[s]) / len(systems) for s in names}
    counts = {s: int(quotas[s]) for s in names}
    by_remainder = sorted(names, key=lambda s: (-(quotas[s] - counts[s]), s))
    for system in by_remainder[: n - sum(counts.values())]:
        counts[system] += 1
    rng = random.Random(seed)
    return sorted(i for s in names for i in rng.sample(by_system[s], counts[s]))
