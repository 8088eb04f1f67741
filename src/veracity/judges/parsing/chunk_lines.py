"""Chunk relevance verdicts from text lines, for judges that do not answer in JSON."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from veracity.judges.parsing._chunk_items import RELEVANT_LABELS, RawChunk, complete
from veracity.judges.parsing._coerce import read_label
from veracity.judges.parsing._text import collapse, demark, leading

__all__ = ["parse_chunk_lines"]

_SEP = r"[.):\-\u2013\u2014]"
_NUMBERED = re.compile(
    r"^\s*(?:[-*\u2022]\s*)?(?:"
    rf"(?:chunk|context|doc(?:ument)?|passage)\s*#?\s*\[?(?P<n1>\d{{1,3}})\]?\s*{_SEP}?"
    rf"|\(?\[?(?P<n2>\d{{1,3}})\]?{_SEP})\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
_KEY = r"(?:final\s+)?(?:verdict|relevant|relevance|label|answer)\s*[:=]\s*"
_KEYED = re.compile(rf"^\s*(?:[-*\u2022]\s*)?{_KEY}(?P<rest>.+)$", re.IGNORECASE)
_KEY_PREFIX = re.compile(rf"^{_KEY}", re.IGNORECASE)
_REASON = re.compile(
    r"^\s*(?:[-*\u2022]\s*)?(?:reason|reasoning|explanation|rationale)\s*[:=]\s*(?P<rest>.+)$",
    re.IGNORECASE,
)
_TRAIL = " .,;:!-\u2013\u2014()"
_MAX_LABEL_WORDS = 3


def _leading_flag(text: str) -> tuple[bool, str] | None:
    """A relevance label at the start of ``text`` (longest run of words wins), and the rest."""
    found = leading(text, lambda words: read_label(words, RELEVANT_LABELS), _MAX_LABEL_WORDS)
    if found is None:
        return None
    flag, end = found
    return flag, text[end:].strip().strip(_TRAIL).strip()


@dataclass
class _Reader:
    items: list[RawChunk] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    pending_index: int | None = None
    pending_reason: str = ""
    block_item: int | None = None  # position in ``items`` of the current block's verdict

    def add(self, index: int | None, label: str, reason: str) -> bool:
        found = _leading_flag(_KEY_PREFIX.sub("", label.strip()))
        if found is None:
            return False
        flag, rest = found
        reason = " ".join(r for r in (rest, reason or self.pending_reason) if r)
        where = f"chunk {index}" if index is not None else f"verdict line {len(self.items) + 1}"
        item = complete(index, flag, None, reason, where, self.notes)
        if item is not None:
            self.block_item = len(self.items)
            self.items.append(item)
        self.pending_index, self.pending_reason = None, ""
        return True

    def reason(self, text: str) -> None:
        block = self.block_item
        if block is not None and not self.items[block].reason:
            old = self.items[block]
            self.items[block] = RawChunk(old.index, old.relevant, old.relevance, text)
        else:
            self.pending_reason = text

    def feed(self, line: str) -> None:
        if (m := _REASON.match(line)) is not None:
            self.reason(collapse(m.group("rest")))
        elif (m := _KEYED.match(line)) is not None:
            self.add(self.pending_index, m.group("rest"), "")
        elif (m := _NUMBERED.match(line)) is not None:
            number = int(m.group("n1") or m.group("n2"))
            self.block_item = None
            if not self.add(number, m.group("rest"), ""):
                self.pending_index, self.pending_reason = number, ""  # a header line


def parse_chunk_lines(text: str) -> tuple[list[RawChunk], list[str]] | None:
    """Verdicts from lines such as ``1. relevant``, ``Chunk 2: not relevant - why`` or
    ``Verdict: 1`` (after a ``Chunk 3:`` header, or by position), or a reply that is one
    label; ``None`` when the text has none of these."""
    clean = demark(text)
    reader = _Reader()
    for line in clean.splitlines():
        if line.strip():
            reader.feed(line)
    if not reader.items:
        whole = read_label(clean.strip(), RELEVANT_LABELS)
        if whole is None:
            return None
        reader.add(None, clean.strip(), "")
    return reader.items, reader.notes
