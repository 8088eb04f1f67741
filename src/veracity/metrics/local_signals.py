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
from typing import Any

from veracity.judges.claim_signals import ClaimSignals, claim_signals
from veracity.text import analysis as tx

__all__ = ["ClaimSignals", "answer_overlap", "claim_signals", "local_signals", "yes_no_reply"]

# A question answerable by yes or no opens with an auxiliary verb ("Are both … American?").
_POLAR = re.compile(
    r"^(?:is|are|am|was|were|do|does|did|can|could|has|have|had|will|would|should|shall|"
    r"may|might|must)\b[^?]*\?\W*$",
    re.I,
)
_YES_NO = re.compile(r"^\W*(?:yes|yeah|yep|yup|no|nope|nah)\b\W*", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_BARE_REPLY_CHARS = 200
_QUESTION_TAIL_CHARS = 1_000


def answer_overlap(answer: str, contexts: Sequence[str]) -> float:
    """The share of the answer's words (lower-cased) found in the contexts: the
    word-overlap floor every judge is measured against. 1.0 for an answer without words."""
    words = tx.words(answer)
    found = set(tx.words(" ".join(contexts)))
    return sum(w in found for w in words) / len(words) if words else 1.0


def yes_no_reply(question: str, answer: str) -> bool:
    """Whether ``answer`` is a bare yes or no ("Yes.", "No, they are not.": nothing after
    it but words without content) to a yes/no ``question``. It asserts the question's
    proposition or its denial, yet sentence segmentation draws no claim from it: unlike a
    question asked back or a greeting, it is an answer that no claim verdict covers."""
    if len(answer) > _BARE_REPLY_CHARS:
        return False
    opener = _YES_NO.match(answer)
    if opener is None:
        return False
    rest = answer[opener.end() :]  # "they are not": a negation is no content of its own
    if any(not tx.negated(token) for token in tx.content_tokens(rest)):
        return False
    # The question's last sentence, read from its end: a long question costs no more.
    asked = _SENTENCE_END.split(question.strip()[-_QUESTION_TAIL_CHARS:])[-1]
    return _POLAR.match(asked) is not None


def local_signals(
    answer: str, claims: Sequence[str], contexts: Sequence[str], question: str = ""
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
        "yes_no_reply": not claims and yes_no_reply(question, answer),
        "claims": [c.as_dict() for c in per_claim],
    }
    return summary, per_claim
