"""Where a supported verdict's support lies among some texts (contexts, or a
conversation's turns): where its evidence quote is found; or, for a quote found nowhere
(a small judge paraphrases its quotes), the text holding the most of the claim's own
content words, at least :data:`CLAIM_WORDS_FOUND` of them (several holding as many: those
holding the most of the words of the sentence the claim was drawn from, where known).
The texts holding a supported claim word for word (six words or more, in order) are where
its support is, whatever the quote names: a small judge quotes a passage loosely related
to a claim that another passage holds as it stands. Support found nowhere is not located:
the judge's word alone does not say where it is.

Asked for (``joint``), a supported claim that no one text holds enough of, as one sentence
may say what two passages each say half of ("Physics in 1903 and Chemistry in 1911"), is
located in the texts that hold it together (``together``): at least
:data:`JOINT_COVER` of its content words, each text adding two or more of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from veracity.judges.llm.evidence import contexts_quoting
from veracity.judges.verbatim import verbatim_contexts
from veracity.text.analysis import content_tokens
from veracity.types import ClaimVerdict, Verdict

__all__ = ["CLAIM_WORDS_FOUND", "JOINT_COVER", "Located", "locate"]

# The share of a claim's content words a text must hold to be taken as its support when
# the judge's evidence quote is in no text.
CLAIM_WORDS_FOUND = 0.6
# The share of a claim's content words texts must hold between them to support it
# together, where none holds that much alone; each must add this many words at least, and
# at most this many texts are joined.
JOINT_COVER = 0.8
JOINT_MIN_WORDS = 2
JOINT_MAX_TEXTS = 3
Located = Literal["evidence", "word for word", "claim words", "together"]


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


def _together(
    claim: str, texts: Sequence[str], found: Sequence[int], prefer: Sequence[int]
) -> tuple[int, ...] | None:
    """The texts that hold ``claim`` between them where those ``found`` (one, or none)
    hold too little of it: texts added one at a time, the one adding the most of its words
    first (of equals, one in ``prefer``, then the first); ``None`` where no such texts
    hold :data:`JOINT_COVER` of it."""
    words = set(content_tokens(claim))
    held = [words & set(content_tokens(text)) for text in texts]
    chosen = list(found)
    covered = set().union(*(held[i] for i in chosen))
    needed = JOINT_COVER * len(words)
    if len(words) < 2 * JOINT_MIN_WORDS or len(covered) >= needed:
        return None
    while len(covered) < needed and len(chosen) < JOINT_MAX_TEXTS:
        others = [i for i in range(len(texts)) if i not in chosen]
        best = max(others, key=lambda i: (len(held[i] - covered), i in prefer, -i), default=None)
        if best is None or len(held[best] - covered) < JOINT_MIN_WORDS:
            return None
        chosen.append(best)
        covered |= held[best]
    return tuple(sorted(chosen)) if len(covered) >= needed and len(chosen) > 1 else None


def locate(
    verdict: ClaimVerdict,
    texts: Sequence[str],
    sentence: str | None = None,
    *,
    joint: bool = False,
    prefer: Sequence[int] = (),
) -> tuple[tuple[int, ...], Located | None]:
    """The 0-based indices of the ``texts`` ``verdict``'s support is in, and how they were
    found; ``((), None)`` when nowhere. For a supported verdict, the texts holding the
    claim word for word are where its support is, whatever the quote names; and the claim
    words are tried for a supported verdict only, ties broken by the words of
    ``sentence``, the answer's sentence the claim is drawn from, where known. With
    ``joint``, a supported claim no one text holds enough of is located in the texts that
    hold it together (``together``: each needed), those in ``prefer`` (the texts its
    sentence cites) first among equals."""
    support, how = _located(verdict, texts, sentence)
    # Texts that each hold it (word for word, or tied) need no other.
    alone = how == "word for word" or len(support) > 1
    if joint and verdict.verdict is Verdict.SUPPORTED and not alone:
        together = _together(verdict.claim, texts, support, prefer)
        if together is not None:
            return together, "together"
    return support, how


def _located(
    verdict: ClaimVerdict, texts: Sequence[str], sentence: str | None
) -> tuple[tuple[int, ...], Located | None]:
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
