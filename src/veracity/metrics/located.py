"""Where a supported verdict's support lies among some texts (contexts, or a
conversation's turns): where its evidence quote is found; or, for a quote found nowhere
(a small judge paraphrases its quotes), the text holding the most of the claim's own
content words, at least :data:`CLAIM_WORDS_FOUND` of them. Support found nowhere is not
located: the judge's word alone does not say where it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from veracity.judges.llm.evidence import contexts_quoting
from veracity.judges.offline.text import content_tokens
from veracity.types import ClaimVerdict, Verdict

__all__ = ["CLAIM_WORDS_FOUND", "Located", "locate"]

# The share of a claim's content words a text must hold to be taken as its support when
# the judge's evidence quote is in no text.
CLAIM_WORDS_FOUND = 0.6
Located = Literal["evidence", "claim words"]


def _by_claim_words(claim: str, texts: Sequence[str]) -> tuple[int, ...]:
    """The text(s) holding the most of ``claim``'s content words, if enough."""
    words = set(content_tokens(claim))
    if not words:
        return ()
    shares = [len(words & set(content_tokens(text))) / len(words) for text in texts]
    best = max(shares, default=0.0)
    if best < CLAIM_WORDS_FOUND:
        return ()
    return tuple(i for i, share in enumerate(shares) if share == best)


def locate(verdict: ClaimVerdict, texts: Sequence[str]) -> tuple[tuple[int, ...], Located | None]:
    """The 0-based indices of the ``texts`` ``verdict``'s support is in, and how they were
    found; ``((), None)`` when nowhere (the claim words are tried for a supported verdict
    only)."""
    support = contexts_quoting(verdict.evidence, texts) if verdict.evidence else ()
    if support:
        return support, "evidence"
    if verdict.verdict is Verdict.SUPPORTED:
        support = _by_claim_words(verdict.claim, texts)
        if support:
            return support, "claim words"
    return (), None
