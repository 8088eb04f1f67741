"""Texts cut into runs to show plain or marked: the answer's claims by verdict, and each
claim's evidence in the contexts. Only cut here; the template escapes every run."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Run:
    text: str
    mark: str | None = None  # a CSS class: the verdict, or "evidence"
    claim: int | None = None  # the claim it belongs to (1-based)


def marked(text: str, needles: Sequence[tuple[str, str, int]]) -> tuple[Run, ...]:
    """``text`` with the first place of each (needle, mark, claim) marked; a needle not
    found, or overlapping one marked before it, is left out (the claims list shows all)."""
    spans: list[tuple[int, int, str, int]] = []
    # Case is ignored only where lowering keeps every offset (it lengthens a few letters).
    lowered = text.lower() if len(text.lower()) == len(text) else text
    for given, mark, claim in needles:
        needle = given.strip()
        if not needle:
            continue
        start = text.find(needle)
        if start < 0 and lowered is not text:
            start = lowered.find(needle.lower())
        if start < 0:
            continue
        end = start + len(needle)
        if any(start < e and s < end for s, e, _m, _c in spans):
            continue
        spans.append((start, end, mark, claim))
    runs, at = [], 0
    for start, end, mark, claim in sorted(spans):
        if start > at:
            runs.append(Run(text[at:start]))
        runs.append(Run(text[start:end], mark, claim))
        at = end
    if at < len(text):
        runs.append(Run(text[at:]))
    return tuple(runs)
