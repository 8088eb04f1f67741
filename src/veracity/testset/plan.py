"""Which chunks each generation call gets, and how many items of which type it asks for.

Everything here is a function of the chunks, the counts and the seed: the same seed plans
the same calls (and so meets the same cached replies).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from veracity.prompts.testset import CHUNKS_PER_ITEM, QuestionType
from veracity.testset.chunking import Chunk

#: Chunks shown to one call: enough for a few distinct items, short enough to read closely.
MAX_GROUP = 3


@dataclass(frozen=True, slots=True)
class PlannedCall:
    """One generation call: ``n`` items of ``question_type`` from ``chunks`` (indices into
    the corpus); ``round`` numbers the pass (later passes make up for dropped items)."""

    question_type: QuestionType
    chunks: tuple[int, ...]
    n: int
    round: int


def split_count(count: int, types: Sequence[QuestionType]) -> dict[QuestionType, int]:
    """``count`` shared across ``types`` as evenly as possible (the first ones get the rest)."""
    base, rest = divmod(count, len(types))
    return {kind: base + (i < rest) for i, kind in enumerate(types)}


class ChunkPicker:
    """Chunks in a seeded random order, handed out in groups, cycling when they run out."""

    def __init__(self, chunks: Sequence[Chunk], seed: int, round_: int) -> None:
        self.chunks = chunks
        self.rng = random.Random(f"veracity-testset:{seed}:{round_}")
        self.order = list(range(len(chunks)))
        self.rng.shuffle(self.order)
        self.cursor = 0

    def _next(self) -> int:
        index = self.order[self.cursor % len(self.order)]
        self.cursor += 1
        return index

    def group(self, size: int) -> tuple[int, ...]:
        """The next ``size`` distinct chunks of the order."""
        size = min(size, len(self.chunks))
        picked: list[int] = []
        while len(picked) < size:
            index = self._next()
            if index not in picked:
                picked.append(index)
        return tuple(picked)

    def related(self, size: int) -> tuple[int, ...]:
        """The next chunk and ``size - 1`` others, from the same document when it has them
        (multi-hop questions read best across parts of one document), else from others."""
        anchor = self._next()
        source = self.chunks[anchor].source
        same = [i for i, chunk in enumerate(self.chunks) if i != anchor and chunk.source == source]
        partners = self.rng.sample(same, min(size - 1, len(same)))
        picked = [anchor, *sorted(partners)]
        while len(picked) < min(size, len(self.chunks)):
            index = self._next()
            if index not in picked:
                picked.append(index)
        return tuple(picked)


def plan_round(
    chunks: Sequence[Chunk],
    needs: Mapping[QuestionType, int],
    *,
    seed: int,
    round_: int,
    per_call: int,
) -> list[PlannedCall]:
    """The calls of one pass: for each type, ``needs[type]`` items in calls of at most
    ``per_call`` items, each call over its own group of chunks."""
    if per_call < 1:
        raise ValueError(f"per_call must be at least 1, got {per_call}")
    picker = ChunkPicker(chunks, seed, round_)
    calls: list[PlannedCall] = []
    for kind, need in needs.items():
        least = CHUNKS_PER_ITEM[kind][0]
        left = need
        while left > 0:
            n = min(per_call, left)
            if least > 1:
                group = picker.related(MAX_GROUP)
            else:
                group = picker.group(min(MAX_GROUP, max(n, 2)))
            calls.append(PlannedCall(kind, group, n, round_))
            left -= n
    return calls
