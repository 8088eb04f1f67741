"""Normalise the many ways a judge writes a verdict label to a :class:`Verdict`."""

from __future__ import annotations

import math
import re

from veracity.judges.parsing._coerce import label_table, words
from veracity.judges.parsing._text import leading
from veracity.types.results import Verdict

__all__ = ["leading_label", "normalise_verdict"]

_SUPPORTED = (
    "supported",
    "support",
    "supports",
    "yes",
    "true",
    "entailed",
    "entailment",
    "entails",
    "faithful",
    "attributable",
    "correct",
    "pass",
    "valid",
    "verified",
    "fully supported",
)
_CONTRADICTED = (
    "contradicted",
    "contradiction",
    "contradicts",
    "contradictory",
    "refuted",
    "refutes",
    "conflict",
    "conflicting",
    "inconsistent",
)
_NOT_ENOUGH_INFO = (
    "not_enough_info",
    "not enough info",
    "not enough information",
    "nei",
    "neutral",
    "no",
    "false",
    "unsupported",
    "not supported",
    "not_supported",
    "unverifiable",
    "unknown",
    "cannot be determined",
    "insufficient information",
    "partially supported",
    "partial",
)

# A leading "verdict:" / "label -" that some judges repeat inside the value.
_PREFIX = re.compile(r"^(?:final )?(?:verdict|label|answer)\b ?")


_TABLE = label_table(
    {
        Verdict.SUPPORTED: _SUPPORTED,
        Verdict.CONTRADICTED: _CONTRADICTED,
        Verdict.NOT_ENOUGH_INFO: _NOT_ENOUGH_INFO,
    }
)
_TRAIL = ".,;:!-\u2013\u2014)*"
_MAX_LABEL_WORDS = max(len(k.split()) for k in _TABLE) + 2  # room for a "verdict" prefix


def _number(value: float) -> Verdict | None:
    if math.isfinite(value) and value == 1:
        return Verdict.SUPPORTED
    if math.isfinite(value) and value == 0:
        return Verdict.NOT_ENOUGH_INFO
    return None


def normalise_verdict(raw: object) -> Verdict | None:
    """Map a judge's label to a :class:`Verdict`, or ``None`` if it is not a known label.

    Insensitive to case, whitespace and punctuation (``"**Yes.**"``, ``"NOT_SUPPORTED"``);
    accepts ``True``/``False`` and the numbers 1/0 (also as text, ``"1.0"``).
    """
    if isinstance(raw, Verdict):
        return raw
    if isinstance(raw, bool):
        return Verdict.SUPPORTED if raw else Verdict.NOT_ENOUGH_INFO
    if isinstance(raw, int | float):
        return _number(float(raw))
    if not isinstance(raw, str):
        return None
    text = raw.strip().strip("*_`'\"").strip()
    try:
        return _number(float(text))
    except ValueError:
        pass
    written = words(text)
    found = _TABLE.get(written)
    if found is None:
        found = _TABLE.get(_PREFIX.sub("", written))
    return found


def leading_label(text: str) -> tuple[Verdict, str, str] | None:
    """Read a label at the start of ``text``: ``(verdict, label_as_written, rest)``.

    The longest run of leading words that is a known label wins, so ``"not supported -
    no mention"`` gives NOT_ENOUGH_INFO, ``"not supported"`` and ``"no mention"``.
    """
    found = leading(text, normalise_verdict, _MAX_LABEL_WORDS)
    if found is None:
        return None
    verdict, end = found
    label = text[:end].strip().rstrip(_TRAIL).strip()
    rest = text[end:].strip().lstrip(_TRAIL + "(").strip()
    return verdict, label, rest
