"""Recognise a judge's refusal or non-answer, once nothing else in the reply parsed."""

from __future__ import annotations

import re

from veracity.judges.parsing._text import collapse

__all__ = ["detect_refusal"]

_APOS = "['\u2019]"
_FLAGS = re.IGNORECASE

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ('"I cannot"', re.compile(rf"\bI\s+(?:cannot|can\s*not|can{_APOS}t)\b", _FLAGS)),
    ('"I will not"', re.compile(rf"\bI\s+(?:will\s+not|won{_APOS}t)\b", _FLAGS)),
    (
        '"I am unable to"',
        re.compile(rf"\bI(?:\s+am|{_APOS}m)\s+(?:unable|not\s+able)\s+to\b", _FLAGS),
    ),
    ('"I apologize"', re.compile(r"\bI\s+apologi[sz]e\b", _FLAGS)),
    ('"sorry"', re.compile(r"\bsorry\b", _FLAGS)),
    (
        '"as an AI"',
        re.compile(r"\bas\s+an\s+(?:AI|A\.I\.|(?:AI\s+)?language\s+model)\b", _FLAGS),
    ),
    (
        '"insufficient information"',
        re.compile(r"\b(?:insufficient|not\s+enough)\s+(?:information|context|data)\b", _FLAGS),
    ),
)


def _sentence_around(text: str, start: int, end: int, limit: int = 100) -> str:
    """The sentence holding ``text[start:end]``, flattened and cut to ``limit`` chars."""
    left = max(text.rfind(c, 0, start) for c in ".!?\n") + 1
    rights = [i for i in (text.find(c, end) for c in ".!?\n") if i >= 0]
    right = min(rights) + 1 if rights else len(text)
    sentence = collapse(text[left:right])
    return sentence if len(sentence) <= limit else sentence[: limit - 1] + "\u2026"


def detect_refusal(text: str) -> str | None:
    """A short reason if ``text`` reads as a refusal or non-answer, else ``None``.

    Looks for "I cannot/can't…", "I won't…", "I'm unable to…", "I apologize…",
    "Sorry…", "As an AI…" and "insufficient information…" (whole words, any case).
    Only meaningful for replies in which nothing else could be parsed.
    """
    for what, pattern in _PATTERNS:
        m = pattern.search(text)
        if m is not None:
            quote = _sentence_around(text, m.start(), m.end())
            return f"the judge refused or gave no answer ({what}): {quote!r}"
    return None
