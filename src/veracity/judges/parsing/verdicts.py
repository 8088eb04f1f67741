"""Read the verdicts out of a claim-verification reply, and their P(supported)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from veracity.judges.parsing.legacy_verdicts import parse_legacy_verdicts
from veracity.judges.parsing.probabilities import choice_probabilities, locate_values
from veracity.judges.parsing.reader import ParsedValue, ParseFailure, read_reply
from veracity.prompts.faithfulness import ClaimJudgement, ClaimJudgements
from veracity.types import TokenLogprob, Verdict


@dataclass(frozen=True)
class RawVerdict:
    """One verdict as the judge wrote it, with its label normalised.

    ``claim`` is the statement text the judge repeated, or ``None`` when the reply gave
    only labels or the claim's number (``number``, 1-based); those are matched to claims
    by number, then by position.
    """

    claim: str | None
    verdict: Verdict
    reason: str = ""
    evidence: str = ""
    raw_label: str = ""
    # P(supported), where the judge's token log-probabilities give it.
    p_supported: float | None = None
    number: int | None = None


def _raw(item: ClaimJudgement) -> RawVerdict:
    claim = item.claim.strip() if isinstance(item.claim, str) else item.claim
    number = int(claim) if isinstance(claim, int) or (claim and claim.isdigit()) else None
    text = claim if isinstance(claim, str) and number is None else None  # "2": its number
    verdict = Verdict(item.verdict)
    return RawVerdict(text or None, verdict, item.reason, item.evidence, item.written, None, number)


def read_verdicts_reply(text: str) -> ParsedValue[tuple[RawVerdict, ...]] | ParseFailure:
    """The verdicts of a claim-verification reply: its JSON read by
    :class:`ClaimJudgements` (items with an unknown label skipped, noted), else one of the
    legacy text formats, else a refusal or a failure."""
    read = read_reply(text, ClaimJudgements, legacy=parse_legacy_verdicts)
    return read.map(lambda v: tuple(map(_raw, v.verdicts)))


# The labels a judge is asked for (supported_by_conversation is veracity's, not the judge's).
_LABELS = {v.value: v for v in (Verdict.SUPPORTED, Verdict.CONTRADICTED, Verdict.NOT_ENOUGH_INFO)}


def with_p_supported(
    items: Sequence[RawVerdict], text: str, tokens: Sequence[TokenLogprob]
) -> tuple[RawVerdict, ...]:
    """``items`` read from ``text``, each with its P(supported) where the reply's token
    log-probabilities give one (see :mod:`~veracity.judges.parsing.probabilities`)."""
    if not tokens:
        return tuple(items)
    keys = ClaimJudgement.keys("verdict")
    offsets = locate_values(text, [item.raw_label for item in items], keys)
    found = []
    for item, offset in zip(items, offsets, strict=True):
        weights = choice_probabilities(
            tokens, text, offset, {**_LABELS, item.raw_label: item.verdict}
        )
        p_supported = None if weights is None else weights.get(Verdict.SUPPORTED, 0.0)
        found.append(dataclasses.replace(item, p_supported=p_supported))
    return tuple(found)
