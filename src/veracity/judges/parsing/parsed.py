"""Result types of the parsers for the judge questions beyond faithfulness."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from veracity.types.judgements import ChunkJudgement

T = TypeVar("T")


@dataclass(frozen=True)
class ParsedValue(Generic[T]):
    """A value read from a reply, how it was found, and every coercion made on the way.

    ``method`` is a :data:`~veracity.judges.parsing.outcomes.JsonMethod` or ``"legacy_*"``.
    """

    value: T
    method: str
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ParsedChunks:
    """Chunk judgements by 0-based chunk index; ``missing`` lists chunks left unjudged."""

    items: Mapping[int, ChunkJudgement]
    missing: tuple[int, ...]
    notes: tuple[str, ...] = ()
    method: str = ""
