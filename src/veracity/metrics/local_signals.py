"""A second opinion that costs no call: how far an answer's claims are borne out by the
words, names and numbers of the contexts.

Word overlap fails on paraphrases and LLM judges fail on fluent rewrites with one name or
number swapped, so the two disagree on different items: these signals sit beside every
faithfulness result, whatever the judge, for a calibration fitted to people's labels
(``veracity calibrate``) and for two caveats: ``unbacked_support`` — a claim the judge calls
supported although a name or number of it is nowhere in the contexts — and
``verbatim_not_supported`` — a claim the judge does not call supported although it stands
word for word in a context.

Plain text work (regular expressions), no model: cheap next to any judge call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from veracity.judges.offline import text as tx
from veracity.judges.verbatim import verbatim_in

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
    sentences: tuple[tuple[frozenset[str], bool], ...]  # content tokens, negated
    texts: tuple[str, ...]  # each context, case-folded

    @classmethod
    def of(cls, contexts: Sequence[str]) -> _Contexts:
        whole = " ".join(contexts)
        sentences = tuple(
            (frozenset(tx.content_tokens(part)), tx.negated(part))
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
    flip = (
        closest is not None
        and _share(closest[0], words) >= _NEGATION_OVERLAP
        and tx.negated(claim) != closest[1]
    )
    return ClaimSignals(
        overlap=_share(ctx.tokens, words),
        missing_names=tuple(
            sorted(surface for key, surface in tx.names(claim).items() if key not in ctx.tokens)
        ),
        missing_numbers=tuple(sorted(n for n in tx.numbers(claim) if n not in ctx.numbers)),
        negation_flip=flip,
        verbatim=verbatim_in(claim, ctx.texts),
    )


def answer_overlap(answer: str, contexts: Sequence[str]) -> float:
    """The share of the answer's words (lower-cased) found in the contexts: the
    word-overlap floor every judge is measured against. 1.0 for an answer without words."""
    words = tx.words(answer)
    found = set(tx.words(" ".join(contexts)))
    return sum(w in found for w in words) / len(words) if words else 1.0


def claim_signals(claims: Sequence[str], contexts: Sequence[str]) -> tuple[ClaimSignals, ...]:
    """Every claim's signals against ``contexts``."""
    ctx = _Contexts.of(contexts)
    return tuple(_claim(claim, ctx) for claim in claims)


def local_signals(
    answer: str, claims: Sequence[str], contexts: Sequence[str]
) -> tuple[dict[str, Any], tuple[ClaimSignals, ...]]:
    """The signals of a faithfulness result, as kept in ``details["local_signals"]``, and
    each claim's."""
    per_claim = claim_signals(claims, contexts)
    overlaps = [c.overlap for c in per_claim]
    summary: dict[str, Any] = {
        "answer_overlap": round(answer_overlap(answer, contexts), 4),
        "min_claim_overlap": round(min(overlaps), 4) if overlaps else None,
        "mean_claim_overlap": round(sum(overlaps) / len(overlaps), 4) if overlaps else None,
        "claims_missing_name": sum(bool(c.missing_names) for c in per_claim),
        "claims_missing_number": sum(bool(c.missing_numbers) for c in per_claim),
        "negation_flips": sum(c.negation_flip for c in per_claim),
        "claims": [c.as_dict() for c in per_claim],
    }
    return summary, per_claim
