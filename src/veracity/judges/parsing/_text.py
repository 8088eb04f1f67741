"""Small text helpers shared by the parsers."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

_WS = re.compile(r"\s+")
# Punctuation, quotes, brackets and markdown emphasis that may wrap a statement.
_WRAP = "".join(
    (
        " \t\r\n",
        "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
        "\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u00ab\u00bb\u2039\u203a",
        "\u2013\u2014\u2026\u00b7\u2022",
    )
)
# A leading "1.", "1)", "(1)" or "1:" numbering, but not the "1.5" of a number.
_NUMBERING = re.compile(r"^\(?\d{1,3}[.):]\s*(?=\D|$)")
# A leading list marker: "- ", "* ", "• ", "1. ", "1) ", "(1) ".
LIST_MARKER = re.compile(r"^\s*(?:[-*\u2022\u2023\u25e6\u2043+]|\(?\d{1,3}[.)]|\(\d{1,3}\))\s+")


_MARKDOWN = re.compile(r"\*{2,}|__|`")
_TOKEN = re.compile(r"\S+")


# The keys a judge writes its reason under, first found wins.
REASON_KEYS = "reason reasoning explanation rationale justification"
# A "Reason: …" line of a text reply.
REASON_LINE = re.compile(r"^\W*(?:reason|reasoning|explanation)\s*[:=]\s*(?P<v>.+)$", re.I | re.M)


def collapse(text: str) -> str:
    """Collapse runs of whitespace to single spaces and strip the ends."""
    return _WS.sub(" ", text).strip()


def normalise_statement(text: str) -> str:
    """Comparable form of a statement: NFKC, casefolded, whitespace collapsed, unwrapped."""
    out = collapse(unicodedata.normalize("NFKC", text).casefold())
    out = out.strip(_WRAP)
    out = _NUMBERING.sub("", out)
    return out.strip(_WRAP)


def demark(text: str) -> str:
    """``text`` without the markdown emphasis (``**Verdict:**``, backticks) that would hide
    the keys and labels of a text reply."""
    return _MARKDOWN.sub("", text)


def leading(text: str, read: Callable[[str], T | None], max_words: int) -> tuple[T, int] | None:
    """What ``read`` makes of the longest run of ``text``'s first ``max_words`` words that it
    reads, and where that run ends: ``"not supported - no mention"`` is "not supported",
    not "not"."""
    tokens = list(_TOKEN.finditer(text))
    for n in range(min(len(tokens), max_words), 0, -1):
        if not any(ch.isalnum() for ch in tokens[n - 1].group()):
            continue  # "Supported -": let the shorter run own the label
        end = tokens[n - 1].end()
        found = read(text[:end])
        if found is not None:
            return found, end
    return None


def key_of(key: str) -> str:
    """Normalise a JSON object key for synonym lookup: ``"Claim Text"`` -> ``"claim_text"``."""
    return re.sub(r"[\s\-]+", "_", key.strip().casefold())


def as_text(value: object) -> str:
    """Render a JSON field (reason, evidence) as one line of text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        parts = (as_text(v) for v in value)
        return " | ".join(p for p in parts if p)
    return json.dumps(value, ensure_ascii=False)


def label_text(value: object) -> str:
    """The label as the judge wrote it, for ``RawVerdict.raw_label``."""
    if isinstance(value, str):
        return value.strip()
    return json.dumps(value, ensure_ascii=False)


def preview(text: str, limit: int = 60) -> str:
    """A short one-line quote of ``text`` for notes and messages."""
    flat = collapse(text)
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "\u2026")


def describe_json(value: object) -> str:
    """Describe a JSON value's shape in words, for parse-error messages."""
    if isinstance(value, dict):
        if not value:
            return "an empty JSON object"
        keys = ", ".join(repr(str(k)) for k in list(value)[:5])
        more = ", \u2026" if len(value) > 5 else ""
        return f"a JSON object with keys {keys}{more}"
    if isinstance(value, list):
        return f"a JSON array of {len(value)} item{'' if len(value) == 1 else 's'}"
    if isinstance(value, str):
        return "a JSON string"
    if isinstance(value, bool):
        return "a JSON boolean"
    if isinstance(value, int | float):
        return "a JSON number"
    if value is None:
        return "JSON null"
    return f"a {type(value).__name__}"


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
