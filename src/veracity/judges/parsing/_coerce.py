"""Shared coercions for the readers: numbers as judges write them, labels and flags."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

_NUMBER = re.compile(
    r"^(?P<num>[-+]?\d+(?:\.\d+)?|[-+]?\.\d+)\s*"
    r"(?:(?P<pct>%)|(?:/|\bout\s+of\b)\s*(?P<den>\d+(?:\.\d+)?))?"
    r"(?:\s*(?:points?|pts))?$",
    re.IGNORECASE,
)
_NON_WORD = re.compile(r"[\W_]+")
_WRAPPING = " \t\r\n*_`'\""


@dataclass(frozen=True)
class Number:
    """A number as the judge wrote it: ``"4/5"`` is ``Number(4, 5, True, "4/5")``.

    ``scale`` is the denominator written (100 for a percentage), else ``None``;
    ``integral`` is false when the value was written with a fractional part.
    """

    value: float
    scale: float | None
    integral: bool
    text: str


def read_number(raw: object) -> Number | None:
    """A finite number from a JSON number or a string such as ``"85"``, ``"4/5"``, ``"85%"``."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return Number(float(raw), None, True, str(raw))
    if isinstance(raw, float):
        if not math.isfinite(raw):
            return None
        return Number(raw, None, False, repr(raw))  # JSON wrote a decimal point
    if not isinstance(raw, str):
        return None
    text = unicodedata.normalize("NFKC", raw).strip(_WRAPPING).rstrip(".").strip(_WRAPPING)
    m = _NUMBER.match(text)
    if m is None:
        return None
    den = m.group("den")
    scale = 100.0 if m.group("pct") else float(den) if den else None
    if scale == 0:
        return None
    num = m.group("num")
    return Number(float(num), scale, "." not in num, text)


def words(text: str) -> str:
    """Lowercase words only: ``"Not-Relevant!"`` -> ``"not relevant"``."""
    return _NON_WORD.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def compact(name: str) -> str:
    """A name compared ignoring case, spaces, hyphens and underscores."""
    return words(name).replace(" ", "")


def read_label(raw: object, table: Mapping[str, T]) -> T | None:
    """Look a label up in ``table`` (keys in :func:`words` form); 0/1 and booleans as text."""
    if isinstance(raw, bool):
        raw = "true" if raw else "false"
    elif isinstance(raw, int | float) and not isinstance(raw, bool):
        if raw not in (0, 1):
            return None
        raw = str(int(raw))
    if not isinstance(raw, str):
        return None
    key = words(raw)
    if key in ("1 0", "0 0"):  # "1.0" / "0.0"
        key = key[0]
    return table.get(key)


def label_table(labels: Mapping[T, tuple[str, ...]]) -> dict[str, T]:
    """The one form of a label table: each way of writing a value, in :func:`words` form,
    mapped to the value (what :func:`read_label` looks up)."""
    return {words(label): value for value, written in labels.items() for label in written}


def flag_table(true: tuple[str, ...], false: tuple[str, ...]) -> dict[str, bool]:
    """A :func:`label_table` mapping ``true`` words to True and ``false`` ones to False."""
    return label_table({True: true, False: false})


YES_WORDS = ("yes", "y", "true", "1")
NO_WORDS = ("no", "n", "false", "0")
