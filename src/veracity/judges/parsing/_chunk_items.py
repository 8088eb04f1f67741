"""One chunk judgement as the judge wrote it, and how its fields are read."""

from __future__ import annotations

import re
from dataclasses import dataclass

from veracity.judges.parsing._coerce import NO_WORDS, YES_WORDS, flag_table, read_label, read_number
from veracity.judges.parsing._text import label_text, preview

RELEVANT_LABELS = flag_table(
    (*YES_WORDS, "relevant", "is relevant", "highly relevant", "useful", "helpful", "pass"),
    (
        *NO_WORDS,
        "not relevant",
        "not_relevant",
        "irrelevant",
        "not useful",
        "unrelated",
        "not helpful",
        "fail",
    ),
)
RELEVANT_THRESHOLD = 50
_INDEX = re.compile(r"^\W*(?:(?:chunk|context|doc(?:ument)?|passage|item)\W*)?(\d{1,4})\W*$", re.I)


@dataclass(frozen=True)
class RawChunk:
    """A chunk verdict before matching: ``index`` is 1-based as written, or ``None``."""

    index: int | None
    relevant: bool
    relevance: int
    reason: str = ""


def read_index(raw: object) -> int | None:
    """A chunk number from ``2``, ``2.0``, ``"2"``, ``"chunk 2"`` or ``"[2]"``."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float) and raw.is_integer():
        return int(raw)
    if isinstance(raw, str):
        m = _INDEX.match(raw.strip())
        if m is not None:
            return int(m.group(1))
    return None


def read_relevance(raw: object, notes: list[str], where: str) -> int | None:
    """A 0–100 relevance from ``85``, ``"85"``, ``"85/100"``, ``"8/10"`` or ``0.85``."""
    number = read_number(raw)
    if number is None:
        return None
    value = number.value
    if number.scale is not None:
        value = value / number.scale * 100
        if number.scale != 100:
            notes.append(f"{where}: relevance {number.text!r} read as {round(value)}/100")
    elif not number.integral and 0 <= value <= 1:
        value *= 100
        notes.append(f"{where}: relevance {number.text} read as a fraction, {round(value)}/100")
    if not 0 <= value <= 100:
        notes.append(f"{where}: ignored relevance {number.text!r}, outside 0-100")
        return None
    return round(value)


def complete(
    index: int | None,
    relevant: object,
    relevance: object,
    reason: str,
    where: str,
    notes: list[str],
) -> RawChunk | None:
    """A :class:`RawChunk` from the raw fields, deriving a missing flag or relevance.

    ``relevant`` and ``relevance`` are the raw values (``None`` when absent). A missing or
    unreadable flag comes from relevance >= 50, a missing relevance from the flag
    (100/0); both noted. ``None`` (with a note) when neither can be read.
    """
    flag = None if relevant is None else read_label(relevant, RELEVANT_LABELS)
    if relevant is not None and flag is None:
        notes.append(f"{where}: unknown relevance label {preview(label_text(relevant))}")
    score = None if relevance is None else read_relevance(relevance, notes, where)
    if relevance is not None and read_number(relevance) is None:
        as_flag = read_label(relevance, RELEVANT_LABELS)  # "relevance": "relevant"
        if flag is None and as_flag is not None:
            flag = as_flag
            notes.append(f"{where}: read relevance {preview(label_text(relevance))} as the flag")
        elif as_flag is None:
            notes.append(f"{where}: unreadable relevance {preview(label_text(relevance))}")
    if flag is None and score is not None:
        flag = score >= RELEVANT_THRESHOLD
        notes.append(f"{where}: no relevant flag; derived {flag} from relevance {score}")
    elif score is None and flag is not None:
        score = 100 if flag else 0
        notes.append(f"{where}: no relevance; derived {score} from relevant={flag}")
    if flag is None or score is None:
        notes.append(f"{where}: skipped, it gives neither a relevant flag nor a relevance")
        return None
    return RawChunk(index, flag, score, reason)
