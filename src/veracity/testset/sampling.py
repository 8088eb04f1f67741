"""Reproducible sampling: the rows of lowest seeded rank, and proportional allocation."""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(order=True, frozen=True, slots=True)
class Ranked(Generic[T]):
    """A value with its rank; ``tie`` breaks equal ranks (the question digest)."""

    rank: int
    tie: int
    value: T = field(compare=False)


class BottomK(Generic[T]):
    """The ``k`` values of lowest rank seen so far, in O(k) memory (a bounded max-heap).

    Which values are kept depends on their ranks only, never on the order they came in.
    """

    def __init__(self, k: int) -> None:
        if k < 0:
            raise ValueError(f"k must not be negative, got {k}")
        self.k = k
        self.seen = 0
        self._heap: list[tuple[int, int, Ranked[T]]] = []  # (-rank, -tie, item)

    def offer(self, item: Ranked[T]) -> None:
        self.seen += 1
        if self.k == 0:
            return
        entry = (-item.rank, -item.tie, item)
        if len(self._heap) < self.k:
            heapq.heappush(self._heap, entry)
        elif (item.rank, item.tie) < (-self._heap[0][0], -self._heap[0][1]):
            heapq.heapreplace(self._heap, entry)

    def lowest(self, n: int | None = None) -> list[Ranked[T]]:
        """The ``n`` (default all kept) values of lowest rank, lowest first."""
        ordered = sorted(entry[2] for entry in self._heap)
        return ordered if n is None else ordered[:n]

    def __len__(self) -> int:
        return len(self._heap)

    def __iter__(self) -> Iterator[Ranked[T]]:
        return iter(self.lowest())


def allocate(sizes: Mapping[str, int], n: int) -> dict[str, int]:
    """How many of ``n`` to draw from each stratum: proportional to its size, at least one
    from every stratum when ``n`` allows it, never more than a stratum holds.

    Largest remainders settle the rounding; ties go to the larger stratum, then to the
    stratum name, so the allocation is deterministic. With fewer than one draw per stratum
    the largest strata get one each.
    """
    strata = {name: size for name, size in sizes.items() if size > 0}
    total = sum(strata.values())
    n = min(n, total)
    if n <= 0:
        return dict.fromkeys(sizes, 0)
    by_size = sorted(strata, key=lambda s: (-strata[s], s))
    if n < len(strata):
        chosen = set(by_size[:n])
        return {name: int(name in chosen) for name in sizes}
    quota = {name: n * size / total for name, size in strata.items()}
    alloc = {name: min(strata[name], max(1, int(quota[name]))) for name in strata}
    while (excess := sum(alloc.values()) - n) != 0:
        if excess > 0:
            # Take back from the stratum most above its quota that can spare one.
            spare = [s for s in by_size if alloc[s] > 1]
            name = max(spare, key=lambda s: (alloc[s] - quota[s], strata[s], s))
            alloc[name] -= 1
        else:
            room = [s for s in by_size if alloc[s] < strata[s]]
            name = max(room, key=lambda s: (quota[s] - alloc[s], strata[s], s))
            alloc[name] += 1
    return {name: alloc.get(name, 0) for name in sizes}
