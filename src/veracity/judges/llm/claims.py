"""Claims: extracting them from a text, and verifying them against contexts."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from veracity.judges.base import JudgeOutcome
from veracity.judges.chat.base import ChatModel
from veracity.judges.llm.asking import Exchange, Unusable, ask, ask_for_all
from veracity.judges.parsing import (
    ParsedClaims,
    ParsedVerdicts,
    RawVerdict,
    match_verdicts,
    parse_claims_reply,
    parse_verdicts_reply,
)
from veracity.prompts import (
    CLAIM_EXTRACTION,
    CLAIM_VERIFICATION,
    render_extraction,
    render_verification,
)
from veracity.types import ClaimVerdict


async def extract_claims(
    model: ChatModel, question: str, text: str, iteration: int
) -> JudgeOutcome[tuple[str, ...]]:
    exchange = Exchange()
    prompt = CLAIM_EXTRACTION.render(**render_extraction(question, text))
    try:
        parsed: ParsedClaims = await ask(model, prompt, parse_claims_reply, exchange, iteration)
    except Unusable as exc:
        return exchange.outcome(None, str(exc))
    exchange.notes.extend(parsed.notes)
    return exchange.outcome(parsed.claims)


async def verify_claims(
    model: ChatModel,
    claims: Sequence[str],
    contexts: Sequence[str],
    iteration: int,
    batch: bool,
) -> JudgeOutcome[tuple[ClaimVerdict, ...]]:
    exchange = Exchange()
    groups = [list(claims)] if batch else [[claim] for claim in claims]
    failure: str | None = None
    try:
        # A TaskGroup cancels the other per-claim calls once one fails: no wasted calls.
        async with asyncio.TaskGroup() as tasks:
            found = [
                tasks.create_task(_verify_group(model, group, contexts, exchange, iteration))
                for group in groups
            ]
    except* Unusable as failures:
        failure = str(failures.exceptions[0])
    if failure is not None:
        return exchange.outcome(None, failure)
    return exchange.outcome(tuple(verdict for task in found for verdict in task.result()))


async def _verify_group(
    model: ChatModel,
    claims: list[str],
    contexts: Sequence[str],
    exchange: Exchange,
    iteration: int,
) -> list[ClaimVerdict]:
    async def ask_round(pending: list[int]) -> tuple[Mapping[int, RawVerdict], Sequence[int]]:
        asked = [claims[i] for i in pending]
        prompt = CLAIM_VERIFICATION.render(**render_verification(asked, tuple(contexts)))
        parsed: ParsedVerdicts = await ask(model, prompt, parse_verdicts_reply, exchange, iteration)
        match = match_verdicts(asked, parsed.items)
        exchange.notes.extend((*parsed.notes, *match.notes))
        return match.assigned, match.missing

    verdicts = await ask_for_all(len(claims), ask_round, exchange, "claim")
    return [
        ClaimVerdict(claim=claim, verdict=v.verdict, reason=v.reason, evidence=v.evidence)
        for claim, v in zip(claims, verdicts, strict=True)
    ]
