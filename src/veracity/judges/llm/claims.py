"""Claims: extracting them from a text, and verifying them against contexts."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from veracity.judges.base import JudgeOutcome
from veracity.judges.llm.asking import Asker, Exchange, Unusable, ask, ask_for_all, ask_once
from veracity.judges.llm.evidence import UnfoundedSupport, quote_in_contexts, quotes_itself
from veracity.judges.parsing import (
    RawVerdict,
    match_verdicts,
    read_claims_reply,
    read_verdicts_reply,
    with_p_supported,
)
from veracity.judges.verbatim import stating_contexts
from veracity.prompts import (
    CLAIM_EXTRACTION,
    CLAIM_VERIFICATION,
    render_extraction,
    render_verification,
)
from veracity.types import ClaimVerdict, Turn, Verdict


async def extract_claims(
    asker: Asker, question: str, text: str, iteration: int, history: Sequence[Turn] = ()
) -> JudgeOutcome[tuple[str, ...]]:
    prompt = asker.prompt(CLAIM_EXTRACTION, render_extraction(question, text), history=history)
    return await ask_once(asker.model, prompt, read_claims_reply, iteration)


async def verify_claims(
    asker: Asker,
    claims: Sequence[str],
    contexts: Sequence[str],
    iteration: int,
    batch: bool,
    unfounded: UnfoundedSupport,
) -> JudgeOutcome[tuple[ClaimVerdict, ...]]:
    exchange = Exchange()
    groups = [list(claims)] if batch else [[claim] for claim in claims]
    # An exchange per group: when one claim asked alone cannot be judged, only its replies
    # leave the response cache, and a re-run asks again for that claim, not for them all.
    parts = [Exchange() for _ in groups]
    failure: str | None = None
    try:
        # A TaskGroup cancels the other per-claim calls once one fails: no wasted calls.
        async with asyncio.TaskGroup() as tasks:
            found = [
                tasks.create_task(_verify_group(asker, group, contexts, part, iteration, unfounded))
                for group, part in zip(groups, parts, strict=True)
            ]
    except* Unusable as failures:
        failure = str(failures.exceptions[0])
    for part in parts:
        exchange.absorb(part)
    if failure is not None:
        unusable = [
            reply
            for part, task in zip(parts, found, strict=True)
            if not task.cancelled() and task.exception() is not None
            for reply in part.replies
        ]
        return exchange.failed(asker.model, failure, unusable)
    return exchange.outcome(tuple(verdict for task in found for verdict in task.result()))


async def _verify_group(
    asker: Asker,
    claims: list[str],
    contexts: Sequence[str],
    exchange: Exchange,
    iteration: int,
    unfounded: UnfoundedSupport,
) -> list[ClaimVerdict]:
    async def ask_round(pending: list[int]) -> tuple[Mapping[int, RawVerdict], Sequence[int]]:
        asked = [claims[i] for i in pending]
        prompt = asker.prompt(
            CLAIM_VERIFICATION, render_verification(asked, tuple(contexts)), items=len(asked)
        )
        parsed, reply = await ask(asker.model, prompt, read_verdicts_reply, exchange, iteration)
        match = match_verdicts(asked, with_p_supported(parsed.value, reply.text, reply.tokens))
        exchange.notes.extend((*parsed.notes, *match.notes))
        return match.assigned, match.missing

    verdicts = await ask_for_all(len(claims), ask_round, exchange, "claim")
    return [
        _verdict(claim, v, contexts, unfounded) for claim, v in zip(claims, verdicts, strict=True)
    ]


def _verdict(
    claim: str, raw: RawVerdict, contexts: Sequence[str], policy: UnfoundedSupport
) -> ClaimVerdict:
    """The verdict on ``claim``. A supported one whose evidence is not in the contexts is
    flagged ``evidence_not_found`` and, by ``policy`` "downgrade", not trusted: it becomes
    not_enough_info with P(supported) 0. A claim that a context states word for word is
    supported, with P(supported) 1, where the judge said not_enough_info, or contradicted
    quoting nothing but the claim's own words (a small judge misses copied sentences; its
    verdict and reason are kept). A contradiction quoting other words stands: the contexts
    may say both ("This is a myth.")."""
    verdict = ClaimVerdict(
        claim=claim,
        verdict=raw.verdict,
        reason=raw.reason,
        evidence=raw.evidence,
        p_supported=raw.p_supported,
    )
    missed = raw.verdict is Verdict.NOT_ENOUGH_INFO or (
        raw.verdict is Verdict.CONTRADICTED and quotes_itself(claim, raw.evidence)
    )
    stating = stating_contexts(claim, contexts) if missed else ()
    if stating:
        quoting = ", quoting the claim's own words" if raw.verdict is Verdict.CONTRADICTED else ""
        return verdict.model_copy(
            update={
                "verdict": Verdict.SUPPORTED,
                "reason": f"context {stating[0] + 1} states it word for word; the judge said "
                f"{raw.verdict.value}{quoting} ({raw.reason})",
                # Its words are the context's, case and punctuation aside.
                "evidence": claim,
                "p_supported": None if raw.p_supported is None else 1.0,
                "overruled": raw.verdict,
            }
        )
    if raw.verdict is not Verdict.SUPPORTED or quote_in_contexts(raw.evidence, contexts):
        return verdict
    if policy == "flag":
        return verdict.model_copy(update={"evidence_not_found": True})
    return verdict.model_copy(
        update={
            "verdict": Verdict.NOT_ENOUGH_INFO,
            "reason": "judged supported, but the evidence quoted is not in the contexts "
            f"({raw.reason})",
            "p_supported": None if raw.p_supported is None else 0.0,
            "evidence_not_found": True,
        }
    )
