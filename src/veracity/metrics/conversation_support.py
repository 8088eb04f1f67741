"""Claims the contexts leave unsupported but the conversation supports.

"As you mentioned, you live in Ohio" is not a hallucination when the user said so: a
claim the contexts give not enough information for is judged again, in one batched call
of the same question, against the conversation's turns (the user's and the assistant's,
not the system's). Supported there, it becomes ``supported_by_conversation``, its evidence
the turn it rests on, unless a name or number of it is nowhere in the conversation (a
small judge is lenient: "the Dayton store opens at 8 am" passed on "we have stores in
Columbus and Dayton") or no turn holds its support: neither the judge's evidence quote
nor most of the claim's words (:mod:`~veracity.metrics.located`; the 1.5B judge quoted
the claim itself as the conversation's evidence). Contradicted claims stay as they are:
what the contexts contradict is not made right by having been said before. Both judges,
through ``verify_claims``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from veracity.judges import JudgeOutcome
from veracity.metrics.base import SampleWork
from veracity.metrics.local_signals import local_signals
from veracity.metrics.located import locate
from veracity.types import ClaimVerdict, Turn, Verdict

__all__ = ["with_conversation_support"]

_READ_ROLES = (None, "user", "assistant")


def _turns(history: Sequence[Turn]) -> list[tuple[int, Turn]]:
    return [(n, t) for n, t in enumerate(history, 1) if t.role in _READ_ROLES and t.content]


def _rested_on(verdict: ClaimVerdict, turn: int, turns: Sequence[tuple[int, Turn]]) -> ClaimVerdict:
    """The conversation's verdict on a claim, as the claim's verdict: ``turn`` (an index
    of ``turns``) is where its support was found."""
    number, said_by = turns[turn]
    said = f"turn {number} ({said_by.role})" if said_by.role else f"turn {number}"
    return verdict.model_copy(
        update={
            "verdict": Verdict.SUPPORTED_BY_CONVERSATION,
            # The judge was shown the turns as its contexts: its reason speaks of them so.
            "reason": (
                f"not in the contexts, but {said} supports it (the judge, given the "
                f"conversation's turns as contexts: {verdict.reason})"
                if verdict.reason
                else f"not in the contexts, but {said} supports it"
            ),
        }
    )


def _unbacked(claim: str, said: Sequence[str]) -> bool:
    """A name or number of the claim is nowhere in the conversation: whatever the judge
    said, the conversation does not hold it ("the Dayton store opens at 8 am" is not in
    "we have stores in Columbus and Dayton")."""
    _, (signals,) = local_signals("", [claim], said)
    return signals.unbacked


async def with_conversation_support(
    work: SampleWork, verdicts: tuple[ClaimVerdict, ...]
) -> tuple[tuple[ClaimVerdict, ...], JudgeOutcome[Any]]:
    """``verdicts`` with those the conversation supports marked so, and the outcome of
    asking (its usage, its readings, and notes: a failed check keeps the contexts'
    verdicts, and says so; nothing asked, an empty outcome)."""
    turns = _turns(work.sample.history)
    open_claims = [v.claim for v in verdicts if v.verdict is Verdict.NOT_ENOUGH_INFO]
    if not turns or not open_claims:
        return verdicts, JudgeOutcome(value=())
    checked: JudgeOutcome[tuple[ClaimVerdict, ...]] = await work.judge.verify_claims(
        open_claims, [t.content for _, t in turns], iteration=work.iteration
    )
    if checked.value is None:
        why = f"the conversation could not be checked for unsupported claims: {checked.error}"
        return verdicts, dataclasses.replace(checked, notes=(why,))
    said = [t.content for _, t in turns]
    by_claim: dict[str, tuple[ClaimVerdict, int]] = {}
    nowhere = 0
    for v in checked.value:
        if v.verdict is not Verdict.SUPPORTED or _unbacked(v.claim, said):
            continue
        where, _ = locate(v, said)
        if where:
            by_claim[v.claim] = (v, where[0])
        else:
            nowhere += 1
    marked = tuple(
        _rested_on(*by_claim[v.claim], turns)
        if v.verdict is Verdict.NOT_ENOUGH_INFO and v.claim in by_claim
        else v
        for v in verdicts
    )
    if nowhere:
        checked = dataclasses.replace(
            checked,
            notes=(
                *checked.notes,
                f"{nowhere} claim(s) the judge called supported by the conversation, on "
                "evidence no turn holds and with most of their words in no turn: left as the "
                "contexts' verdict",
            ),
        )
    return marked, checked
