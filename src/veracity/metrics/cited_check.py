"""A cited passage asked alone: does it support the claim that cites it?

Citation recall and precision read where the faithfulness verdicts' evidence lies, with no
call of their own, wherever that evidence settles a claim. Where it does not (the judge
found not enough information in all the contexts together, or called the claim supported
on a quote that no context holds), the claim is judged again against each passage it
cites, alone, in one batched call per passage: the question ALCE asks. A small judge reads
one passage better than five (the 1.5B judge called sentences copied word for word from
their cited passage ``not_enough_info``). Supported there, unless a name or number of the
claim is not in that passage, the claim is cited. A contradicted claim stays as it is, and
so does a supported claim whose evidence lies only in passages it does not cite
(misattributed). A failed check keeps what the verdicts said, and says so.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from veracity.metrics.base import SampleWork
from veracity.metrics.local_signals import unbacked
from veracity.types import Attribution, Usage, Verdict

__all__ = ["ASKED_ALONE", "check_cited"]

ASKED_ALONE = "its cited passage, asked alone"


def _cited(claim: dict[str, Any], contexts: int) -> tuple[int, ...]:
    return tuple(i for i in claim["cites"] if 0 <= i < contexts)


def _open(claim: dict[str, Any]) -> bool:
    """The verdict does not settle where the claim's support lies."""
    verdict = claim["verdict"]
    located = claim["located_by"] == "evidence"
    return verdict == Verdict.NOT_ENOUGH_INFO.value or (
        verdict == Verdict.SUPPORTED.value and not located
    )


def _settled(
    claim: dict[str, Any], asked: dict[int, str], passages: Sequence[str], every: bool
) -> dict[str, Any]:
    """``claim`` as the answers of its cited passages leave it (``every`` one of them
    answered, or some check failed)."""
    text = claim["claim"]
    supporting = tuple(
        i
        for i, verdict in asked.items()
        if verdict == Verdict.SUPPORTED.value and not unbacked(text, [passages[i]])
    )
    shown = {**claim, "asked": asked}
    if supporting:
        return {
            **shown,
            "verdict": Verdict.SUPPORTED.value,
            "supported_by": supporting,
            "located_by": ASKED_ALONE,
            "attribution": Attribution.CITED,
        }
    if not every:  # a passage not heard from may hold it: as the verdicts left it
        return shown
    # Not in what it cites: a supported claim found (by its words) elsewhere misleads.
    elsewhere = tuple(i for i in claim["supported_by"] if i not in claim["cites"])
    if claim["verdict"] == Verdict.SUPPORTED.value and elsewhere:
        return {**shown, "supported_by": elsewhere, "attribution": Attribution.MISATTRIBUTED}
    return {**shown, "supported_by": (), "attribution": Attribution.UNSUPPORTED}


async def check_cited(
    work: SampleWork, claims: Sequence[dict[str, Any]], base: int
) -> tuple[list[dict[str, Any]], Usage, list[str]]:
    """``claims`` (as :class:`~veracity.metrics.citation.Citations` lists them) with each
    open one settled by its cited passages, the usage of asking, and notes (passages
    numbered from ``base``, as the answer numbers them)."""
    passages = work.sample.contexts
    wanted: dict[int, dict[str, None]] = {}
    for claim in claims:
        if _open(claim):
            for i in _cited(claim, len(passages)):
                wanted.setdefault(i, {})[claim["claim"]] = None
    if not wanted:
        return list(claims), Usage(), []
    order = sorted(wanted)
    outcomes = await asyncio.gather(*(work.passage_verdicts(i, tuple(wanted[i])) for i in order))
    usage, notes = Usage(), []
    answers: dict[tuple[str, int], str] = {}
    for i, outcome in zip(order, outcomes, strict=True):
        usage += work.charge(outcome)
        if outcome.value is None:
            notes.append(f"passage [{i + base}] could not be asked alone: {outcome.error}")
            continue
        answers.update({(v.claim, i): v.verdict.value for v in outcome.value})
    settled = []
    for claim in claims:
        cited = _cited(claim, len(passages))
        asked = {i: answers[claim["claim"], i] for i in cited if (claim["claim"], i) in answers}
        every = len(asked) == len(cited)
        settled.append(_settled(claim, asked, passages, every) if _open(claim) and asked else claim)
    return settled, usage, notes
