"""What the words of some contexts say of a claim, without a call: the share of its
content words they hold, its names and numbers they lack, a negation flipped against the
sentence it restates, and whether they hold it word for word.

Used by faithfulness' local signals (a second opinion beside every judge's verdicts) and by
the LLM judge, to choose where a second look can find what its first one missed. Plain
text work (regular expressions), no model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from veracity.judges.verbatim import verbatim_in
from veracity.text import analysis as tx

__all__ = ["ClaimSignals", "claim_signals"]

# A sentence ends at . ! or ? before white space: cruder than the offline judge's
# segmenter, and enough to find the sentence a claim leans on.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# A best-matching sentence sharing less than this share of the claim's words is not the
# sentence the claim restates, so a negation in one and not the other says nothing.
_NEGATION_OVERLAP = 0.5


@dataclass(frozen=True, slots=True)
class _Contexts:
    tokens: frozenset[str]
    numbers: frozenset[str]
    sentences: tuple[tuple[frozenset[str], int], ...]  # content tokens, negation words
    texts: tuple[str, ...]  # each context, case-folded

    @classmethod
    def of(cls, contexts: Sequence[str]) -> _Contexts:
        whole = " ".join(contexts)
        sentences = tuple(
            (frozenset(tx.content_tokens(part)), tx.negations(part))
            for context in contexts
            for part in _SENTENCE_END.split(context)
            if part.strip()
        )
        texts = tuple(tx.casefolded(context) for context in contexts)
        return cls(frozenset(tx.all_tokens(whole)), frozenset(tx.numbers(whole)), sentences, texts)


@dataclass(frozen=True, slots=True)
class ClaimSignals:
    """One claim against the contexts."""

    overlap: float  # share of the claim's content words found in the contexts
    missing_names: tuple[str, ...]
    missing_numbers: tuple[str, ...]
    negation_flip: bool  # negated where its closest context sentence is not, or the reverse
    verbatim: bool  # its words, in order, stand in one context (VERBATIM_WORDS or more)
    # As many negation words as its closest context sentence, or it has none: a flip, or a
    # negation added to an already negated sentence, are not (kept out of ``as_dict``:
    # the calibration reads the flip alone).
    negations_agree: bool

    @property
    def unbacked(self) -> bool:
        """A name or number of the claim is nowhere in the contexts."""
        return bool(self.missing_names or self.missing_numbers)

    def as_dict(self) -> dict[str, Any]:
        return {
            "overlap": round(self.overlap, 4),
            "missing_names": list(self.missing_names),
            "missing_numbers": list(self.missing_numbers),
            "negation_flip": self.negation_flip,
            "verbatim": self.verbatim,
        }


def _share(found: frozenset[str], words: Sequence[str]) -> float:
    return sum(w in found for w in words) / len(words) if words else 1.0


def _claim(claim: str, ctx: _Contexts) -> ClaimSignals:
    words = list(dict.fromkeys(tx.content_tokens(claim))) or list(
        dict.fromkeys(tx.all_tokens(claim))
    )
    closest = max(ctx.sentences, key=lambda s: _share(s[0], words), default=None)
    # The sentence the claim restates, if one does: its negation words.
    restated = (
        closest[1]
        if closest is not None and _share(closest[0], words) >= _NEGATION_OVERLAP
        else None
    )
    negations = tx.negations(claim)
    return ClaimSignals(
        overlap=_share(ctx.tokens, words),
        missing_names=tuple(
            sorted(surface for key, surface in tx.names(claim).items() if key not in ctx.tokens)
        ),
        missing_numbers=tuple(sorted(n for n in tx.numbers(claim) if n not in ctx.numbers)),
        negation_flip=restated is not None and (negations > 0) != (restated > 0),
        verbatim=verbatim_in(claim, ctx.texts),
        negations_agree=negations == (restated or 0),
    )


def claim_signals(claims: Sequence[str], contexts: Sequence[str]) -> tuple[ClaimSignals, ...]:
    """Every claim's signals against ``contexts``."""
    ctx = _Contexts.of(contexts)
    return tuple(_claim(claim, ctx) for claim in claims)
