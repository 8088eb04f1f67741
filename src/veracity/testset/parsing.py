"""Read generated test items out of a reply, with the prompt's output model."""

from __future__ import annotations

from dataclasses import dataclass

from veracity.judges.parsing.reader import ParseFailure, read_reply
from veracity.prompts.testset import GeneratedTestItems


@dataclass(frozen=True)
class DraftItem:
    """A generated item as the model wrote it; ``chunks`` are 0-based, in cited order."""

    question: str
    reference: str
    chunks: tuple[int, ...]


@dataclass(frozen=True)
class ParsedItems:
    """The well-formed items of a reply, and why each other item was rejected."""

    items: tuple[DraftItem, ...]
    malformed: tuple[str, ...]
    method: str
    notes: tuple[str, ...] = ()


def parse_items_reply(text: str, n_chunks: int, min_chunks: int = 1) -> ParsedItems | ParseFailure:
    """The items of a test-set generation reply (:class:`GeneratedTestItems`): one that is
    not well formed is *malformed*, counted, not fatal; no item at all is a failure."""
    malformed: list[str] = []
    context = {"n_chunks": n_chunks, "min_chunks": min_chunks, "malformed": malformed}
    read = read_reply(text, GeneratedTestItems, context)
    if isinstance(read, ParseFailure):
        return read
    items = tuple(
        DraftItem(i.question, i.reference, tuple(n - 1 for n in i.chunks)) for i in read.value.items
    )
    return ParsedItems(items, tuple(malformed), read.method, tuple(dict.fromkeys(read.notes)))
