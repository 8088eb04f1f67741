"""Where a supported verdict's support lies among some texts (contexts, or a
conversation's turns): where its evidence quote is found; or, for a quote found nowhere
(a small judge paraphrases its quotes), the text holding the most of the claim's own
content words, at least :data:`CLAIM_WORDS_FOUND` of them (several holding as many: those
holding the most of the words of the sentence the claim was drawn from, where known).
The texts holding a supported claim word for word (six words or more, in order) are where
its support is, whatever the quote names: a small judge quotes a passage loosely related
to a claim that another passage holds as it stands. Support found nowhere is not located:
the judge's word alone does not say where it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from veracity.judges.llm.evidence import contexts_quoting
from veracity.judges.offline.text import content_tokens
from veracity.judges.verbatim import verbatim_contexts
from veracity.types import ClaimVerdict, Verdict

__all__ = ["CLAIM_WORDS_FOUND", "Located", "locate"]

# The share of a claim's content words a text must hold to be taken as its support when
# the judge's evidence quote is in no text.
CLAIM_WORDS_FOUND = 0.6
Located = Literal["evidence", "word for word", "claim words"]


def _shares(text: str, texts: Sequence[str]) -> list[float]:
    """The share of ``text``'s content words each of ``texts`` holds (``[]`` if it has
    none)."""
    words = set(content_tokens(text))
    if not words:
        return []
    return [len(words & set(content_tokens(one))) / len(words) for one in texts]


def _by_claim_words(claim: str, texts: Sequence[str], sentence: str | None) -> tuple[int, ...]:
    """The text(s) holding the most of ``claim``'s content words, if enough; of those,
    where the claim's words tie, the ones holding the most of ``sentence``'s (the sentence
    of the answer the claim was drawn from: a short claim's words may be in every text,
    "Watson Assistant is a service", where its sentence's are in one)."""
    shares = _shares(claim, texts)
    best = max(shares, default=0.0)
    if best < CLAIM_WORDS_FOUND:
        return ()
    tied = [i for i, share in enumerate(shares) if share == best]
    by_sentence = _shares(sentence, [texts[i] for i in tied]) if sentence else []
    if by_sentence:
        most = max(by_sentence)
        tied = [i for i, share in zip(tied, by_sentence, strict=True) if share == most]
    return tuple(tied)


def locate(
    verdict: ClaimVerdict, texts: Sequence[str], sentence: str | None = None
) -> tuple[tuple[int, ...], Located | None]:
    """The 0-based indices of the ``texts`` ``verdict``'s support is in, and how they were
    found; ``((), None)`` when nowhere. For a supported verdict, the texts holding the
    claim word for word are where its support is, whatever the quote names; and the claim
    words are tried for a supported verdict only, ties broken by the words of
    ``sentence``, the answer's sentence the claim is drawn from, where known."""
    support = contexts_quoting(verdict.evidence, texts) if verdict.evidence else ()
    if verdict.verdict is Verdict.SUPPORTED:
        verbatim = verbatim_contexts(verdict.claim, texts)
        if verbatim and set(verbatim) != set(support):
            return verbatim, "word for word"
    if support:
        return support, "evidence"
    if verdict.verdict is Verdict.SUPPORTED:
        support = _by_claim_words(verdict.claim, texts, sentence)
        if support:
            return support, "claim words"
    return (), None
