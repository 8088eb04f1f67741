"""What a reply cut at its bound still says for certain: the items it closed before the cut."""

from __future__ import annotations

import json
import re

from veracity.prompts.faithfulness import ClaimJudgements

# Where a batched reply's array of items opens: after its container key, or at the start.
_ARRAY_START = re.compile(rf'\A\s*\[|"(?:{"|".join(ClaimJudgements.keys("verdicts"))})"\s*:\s*\[')


def _no_constant(name: str) -> object:
    raise ValueError(f"non-finite constant {name}")


_DECODER = json.JSONDecoder(parse_constant=_no_constant)


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def closed_items(text: str) -> list[dict[str, object]]:
    """The objects of the reply's item array that were written in full before ``text``
    breaks off, in order: each one is strict JSON up to its closing brace, so nothing of it
    is a guess. The first item that is not (the one the cut fell in, or anything that is not
    an object) ends the list."""
    found = _ARRAY_START.search(text)
    if found is None:
        return []
    items: list[dict[str, object]] = []
    at = found.end()
    while True:
        at = _skip_space(text, at)
        if not text.startswith("{", at):
            return items
        try:
            item, at = _DECODER.raw_decode(text, at)
        except ValueError:
            return items  # the cut fell inside this item
        if not isinstance(item, dict):
            return items
        items.append(item)
        at = _skip_space(text, at)
        if not text.startswith(",", at):
            return items
        at += 1
