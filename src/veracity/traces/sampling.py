"""Drawing a share of production to evaluate: reproducibly, and in proportion to each
system's traffic."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence

from veracity.types import Sample

__all__ = ["drawn"]


def drawn(samples: Sequence[Sample], n: int, seed: int = 0) -> list[Sample]:
    """``n`` of ``samples`` (all of them when there are no more), drawn with ``seed``: each
    system gets its share of ``n`` (largest remainders first, names breaking ties), its
    samples chosen at random; kept in their order."""
    if n >= len(samples):
        return list(samples)
    by_system: dict[str, list[int]] = defaultdict(list)
    for index, sample in enumerate(samples):
        by_system[sample.system or ""].append(index)
    systems = sorted(by_system)
    quotas = {s: n * len(by_system[s]) / len(samples) for s in systems}
    counts = {s: int(quotas[s]) for s in systems}
    by_remainder = sorted(systems, key=lambda s: (-(quotas[s] - counts[s]), s))
    for system in by_remainder[: n - sum(counts.values())]:
        counts[system] += 1
    rng = random.Random(seed)
    chosen = sorted(i for s in systems for i in rng.sample(by_system[s], counts[s]))
    return [samples[i] for i in chosen]
