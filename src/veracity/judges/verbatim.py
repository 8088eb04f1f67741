"""Claims that a text holds word for word: found by a search of the case-folded texts,
never a word-by-word copy (contexts may be large).

A claim whose words stand, in order, in a context (case and punctuation aside) is
*verbatim* there; one that is a whole sentence of a context — nothing before it in its
sentence, nothing after it but the sentence's end — is *stated* by that context: the
context says exactly that, with no "critics claim that" or "if" around it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from veracity.text import analysis as tx

__all__ = ["VERBATIM_WORDS", "stating_contexts", "verbatim_contexts", "verbatim_in"]

# A claim this many words long or longer found word for word in a context is there; a
# shorter one ("It is tall.") may stand in a context about something else.
VERBATIM_WORDS = 6
# A word, in any script ("isn't" is one); between two words of a claim found word for
# word, anything else.
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
_BETWEEN = r"[\W_]+"
# Before a sentence's first word: its opening quotes, brackets or list bullet, and space.
_OPENERS = frozenset(" \t\n\r\"'“‘([*•·-")
# What a sentence ends with: closing quotes or brackets, then a full stop or an exclamation
# (not a decimal point), a line or layout break, or the end of the text. A question is not
# a statement.
_CLOSING = re.compile(r"[\"'”’)\]]*(?:[.!](?![^\W_])|[^\S\n]*(?:\n|$)|\s\s)")


def _pattern(claim: str) -> re.Pattern[str] | None:
    said = _WORD.findall(tx.casefolded(claim))
    if len(said) < VERBATIM_WORDS:
        return None
    return re.compile(rf"(?<![^\W_]){_BETWEEN.join(map(re.escape, said))}(?![^\W_])")


def verbatim_in(claim: str, folded: Sequence[str]) -> bool:
    """Whether ``claim``'s words, in order, stand in one of ``folded`` (texts already
    case-folded by :func:`~veracity.text.analysis.casefolded`)."""
    pattern = _pattern(claim)
    return pattern is not None and any(pattern.search(text) for text in folded)


def verbatim_contexts(claim: str, contexts: Sequence[str]) -> tuple[int, ...]:
    """The 0-based indices of the ``contexts`` holding ``claim``'s words, in order
    (:data:`VERBATIM_WORDS` words or more), wherever in their sentences."""
    pattern = _pattern(claim)
    if pattern is None:
        return ()
    return tuple(i for i, context in enumerate(contexts) if pattern.search(tx.casefolded(context)))


def _whole_sentence(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a whole sentence of ``text``: at the text's start,
    after a sentence's end or a line or layout break (openers aside), and ending one."""
    first = start
    while first > 0 and text[first - 1] in _OPENERS:
        first -= 1
    gap = text[first:start]
    opens = first == 0 or text[first - 1] in ".!?" or "\n" in gap or "  " in gap
    return opens and _CLOSING.match(text, end) is not None


def stating_contexts(claim: str, contexts: Sequence[str]) -> tuple[int, ...]:
    """The 0-based indices of the ``contexts`` that have ``claim`` as one of their
    sentences, word for word (:data:`VERBATIM_WORDS` words or more)."""
    pattern = _pattern(claim)
    if pattern is None:
        return ()
    return tuple(i for i, context in enumerate(contexts) if _states(pattern, context))


def _states(pattern: re.Pattern[str], context: str) -> bool:
    folded = tx.casefolded(context)
    return any(_whole_sentence(folded, m.start(), m.end()) for m in pattern.finditer(folded))
