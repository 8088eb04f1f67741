"""Is a judge's evidence quote in the contexts? A supported verdict rests on it."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Literal, get_args

from rapidfuzz import fuzz

from veracity.prompts._rules import DATA_TAGS

# What a supported verdict whose evidence is not in the contexts becomes: kept and flagged,
# or downgraded to not_enough_info. Kept and flagged by default: a small local judge ranked
# answers better so on the development sets (docs/benchmarks.md); its unfound quotes copy
# unfaithful claims, but also stitch together faithful multi-hop ones.
UnfoundedSupport = Literal["flag", "downgrade"]
UNFOUNDED_SUPPORTS: tuple[UnfoundedSupport, ...] = get_args(UnfoundedSupport)
DEFAULT_UNFOUNDED_SUPPORT: UnfoundedSupport = "flag"

# A quote may differ from the contexts by a typo, a dropped word or punctuation: a partial
# match of at least this similarity (0–100) counts, for quotes long enough to tell.
MIN_SIMILARITY = 90.0
MIN_FUZZY_LENGTH = 12

_TAG = re.compile(rf"</?_?(?:{'|'.join(DATA_TAGS)})\b[^>]*>", re.IGNORECASE)
_NON_WORD = re.compile(r"[\W_]+")
_ELLIPSIS = re.compile(r"\.\.\.+|…|\[\.\.\.\]")


def _normal(text: str) -> str:
    """Case, punctuation and whitespace set aside: words joined by single spaces."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _NON_WORD.sub(" ", folded).strip()


def quote_in_contexts(quote: str, contexts: Sequence[str]) -> bool:
    """Whether ``quote`` appears in one of ``contexts``, after normalising case, whitespace
    and punctuation and dropping veracity's own markup (``<context index="1">``), allowing
    small differences. A quote that skips words (``…``) is found when each of its parts
    is. An empty quote is not found."""
    parts = [_normal(part) for part in _ELLIPSIS.split(_TAG.sub(" ", quote))]
    parts = [part for part in parts if part]
    normal = [_normal(context) for context in contexts]
    return bool(parts) and all(_found(part, normal) for part in parts)


def contexts_quoting(quote: str, contexts: Sequence[str]) -> tuple[int, ...]:
    """The 0-based indices of the contexts that hold all of ``quote``, read as
    :func:`quote_in_contexts` reads it: where a verdict's evidence is."""
    parts = [_normal(part) for part in _ELLIPSIS.split(_TAG.sub(" ", quote))]
    parts = [part for part in parts if part]
    if not parts:
        return ()
    normal = [_normal(context) for context in contexts]
    return tuple(i for i, one in enumerate(normal) if all(_found(p, [one]) for p in parts))


def quotes_itself(claim: str, quote: str) -> bool:
    """Whether ``quote`` is made of ``claim``'s own words, all or part of them, case,
    whitespace and punctuation aside (an empty quote is not). A quote holding more than
    the claim is not: "… in Paris. That is a myth." may contradict it."""
    quoted = _normal(quote)
    return bool(quoted) and f" {quoted} " in f" {_normal(claim)} "


def _found(wanted: str, normal: Sequence[str]) -> bool:
    # Whole words only: "is" is not found in "this".
    if any(f" {wanted} " in f" {context} " for context in normal):
        return True
    if len(wanted) < MIN_FUZZY_LENGTH:
        return False
    return any(fuzz.partial_ratio(wanted, context) >= MIN_SIMILARITY for context in normal)
