"""Claims: extracting them from a text, and verifying them against contexts."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from veracity.chat.base import ChatReply
from veracity.judges.base import JudgeOutcome
from veracity.judges.claim_signals import claim_signals
from veracity.judges.llm.asking import (
    Asker,
    CutReply,
    Exchange,
    Unusable,
    ask,
    ask_for_all,
    ask_once,
)
from veracity.judges.llm.cut_replies import closed_items
from veracity.judges.llm.evidence import UnfoundedSupport, quote_in_contexts, quotes_itself
from veracity.judges.parsing.matching import match_verdicts
from veracity.judges.parsing.reader import ParseFailure
from veracity.judges.parsing.replies import read_claims_reply
from veracity.judges.parsing.verdicts import RawVerdict, read_verdicts_reply, with_p_supported
from veracity.judges.verbatim import stating_contexts
from veracity.prompts import (
    CLAIM_EXTRACTION,
    CLAIM_VERIFICATION,
    CLAIM_VERIFICATION_ALONE,
    EVIDENCE_WORDS,
    render_extraction,
    render_verification,
)
from veracity.text.analysis import content_tokens
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
    second_look: bool = True,
) -> list[ClaimVerdict]:
    asked_alone: set[str] = set()

    async def ask_round(pending: list[int]) -> tuple[Mapping[int, RawVerdict], Sequence[int]]:
        asked = [claims[i] for i in pending]
        prompt = asker.prompt(
            CLAIM_VERIFICATION, render_verification(asked, tuple(contexts)), items=len(asked)
        )
        try:
            parsed, reply = await ask(
                asker.model, prompt, read_verdicts_reply, exchange, iteration, reask_cut=False
            )
        except CutReply as cut:
            found = await _after_cut(asker, asked, contexts, cut, exchange, iteration)
            asked_alone.update(asked[i] for i in found.alone)
            return found.verdicts, ()
        match = match_verdicts(asked, with_p_supported(parsed.value, reply.text, reply.tokens))
        exchange.notes.extend((*parsed.notes, *match.notes))
        return match.assigned, match.missing

    verdicts = await ask_for_all(len(claims), ask_round, exchange, "claim")
    judged = [
        _verdict(claim, v, contexts, unfounded) for claim, v in zip(claims, verdicts, strict=True)
    ]
    open_claims = [v.claim for v in judged if v.verdict is Verdict.NOT_ENOUGH_INFO]
    if not second_look or not open_claims:
        return judged
    places = dict(zip(open_claims, holding_contexts(open_claims, contexts), strict=True))

    async def look_again(verdict: ClaimVerdict) -> ClaimVerdict:
        where = places.get(verdict.claim, ()) if verdict.verdict is Verdict.NOT_ENOUGH_INFO else ()
        alone = len(claims) == 1 or verdict.claim in asked_alone
        if not where or (alone and len(where) == len(contexts)):
            return verdict  # nowhere to look, or asked alone against these already
        return await _second_look(asker, verdict, where, contexts, exchange, iteration, unfounded)

    return list(await asyncio.gather(*map(look_again, judged)))


@dataclass(frozen=True)
class _AfterCut:
    """The verdicts on a batch of claims whose reply was cut (by position in the batch),
    and the positions of the claims asked alone."""

    verdicts: dict[int, RawVerdict]
    alone: tuple[int, ...]


async def _after_cut(
    asker: Asker,
    asked: list[str],
    contexts: Sequence[str],
    cut: CutReply,
    exchange: Exchange,
    iteration: int,
) -> _AfterCut:
    """Verdicts on ``asked`` after their reply was ``cut``: the question is not asked again
    as it was (at temperature 0 a small judge copying whole passages as evidence runs on
    to any bound again). The verdicts the reply closed before the cut are kept; every other
    claim is asked alone, its evidence bounded to :data:`EVIDENCE_WORDS` words.
    :class:`Unusable` when a claim asked alone gets no usable verdict either."""
    kept, notes = _closed_verdicts(asked, cut.reply)
    exchange.notes.extend(notes)
    alone = tuple(i for i in range(len(asked)) if i not in kept)
    bound = CLAIM_VERIFICATION_ALONE.budget(1, asker.max_tokens.get(CLAIM_VERIFICATION_ALONE.id))
    exchange.notes.append(
        f"{CLAIM_VERIFICATION.id}: {cut}; not asked again as it was: kept the "
        f"{len(kept)} verdict(s) it closed before the cut, asked the other {len(alone)} "
        f"claim(s) one at a time, quoting at most {EVIDENCE_WORDS} words "
        f"({bound} tokens a reply)"
    )
    parts = [Exchange() for _ in alone]
    failure: Unusable | None = None
    try:
        async with asyncio.TaskGroup() as tasks:
            found = [
                tasks.create_task(_ask_alone(asker, asked[i], contexts, part, iteration))
                for i, part in zip(alone, parts, strict=True)
            ]
    except* Unusable as failures:
        failure = failures.exceptions[0]  # type: ignore[assignment]
    for part in parts:
        exchange.absorb(part)
    if failure is not None:
        raise Unusable(f"{cut}, and {failure}") from failure
    answers = dict(zip(alone, (task.result() for task in found), strict=True))
    return _AfterCut({**kept, **answers}, alone)


def _closed_verdicts(
    asked: list[str], reply: ChatReply
) -> tuple[dict[int, RawVerdict], tuple[str, ...]]:
    """The verdicts, by position in ``asked``, that ``reply`` wrote in full before its cut,
    and the notes of reading them (a verdict repeated for the same claim is dropped)."""
    items = closed_items(reply.text)
    if not items:
        return {}, ()
    parsed = read_verdicts_reply(json.dumps({"verdicts": items}))
    if isinstance(parsed, ParseFailure):
        return {}, ()
    match = match_verdicts(asked, with_p_supported(parsed.value, reply.text, reply.tokens))
    return dict(match.assigned), (*parsed.notes, *match.notes)


async def _ask_alone(
    asker: Asker, claim: str, contexts: Sequence[str], exchange: Exchange, iteration: int
) -> RawVerdict:
    """The verdict on ``claim`` asked alone, its evidence bounded in words; a reply cut
    again is :class:`Unusable` (no third try at the same claim)."""

    async def ask_round(_: list[int]) -> tuple[Mapping[int, RawVerdict], Sequence[int]]:
        prompt = asker.prompt(
            CLAIM_VERIFICATION_ALONE, render_verification([claim], tuple(contexts)), items=1
        )
        parsed, reply = await ask(
            asker.model, prompt, read_verdicts_reply, exchange, iteration, reask_cut=False
        )
        match = match_verdicts([claim], with_p_supported(parsed.value, reply.text, reply.tokens))
        exchange.notes.extend((*parsed.notes, *match.notes))
        return match.assigned, match.missing

    try:
        [verdict] = await ask_for_all(1, ask_round, exchange, "claim")
    except CutReply as cut:
        raise Unusable(f"asked alone, claim {claim!r} was cut off too: {cut}") from cut
    except Unusable as exc:
        raise Unusable(f"asked alone, claim {claim!r} got no verdict: {exc}") from exc
    return verdict


async def _second_look(
    asker: Asker,
    verdict: ClaimVerdict,
    where: tuple[int, ...],
    contexts: Sequence[str],
    exchange: Exchange,
    iteration: int,
    unfounded: UnfoundedSupport,
) -> ClaimVerdict:
    """The judge's verdict on a not_enough_info ``verdict``'s claim asked alone against
    the contexts ``where`` its words are (:func:`holding_contexts`), where it finds support
    there: among many passages and claims, a small judge misses what one passage says.
    ``verdict`` otherwise (a second look that fails included)."""
    part = Exchange()
    try:
        [again] = await _verify_group(
            asker, [verdict.claim], [contexts[i] for i in where], part, iteration, unfounded,
            second_look=False,
        )  # fmt: skip
    except Unusable as exc:
        part.notes.append(f"second look at {_named(where)} gave no verdict: {exc}")
        part.failed(asker.model, str(exc))  # its replies leave the cache: a re-run asks again
        again = verdict
    exchange.absorb(part)
    if again.verdict is not Verdict.SUPPORTED:
        return verdict
    return again.model_copy(
        update={
            "reason": f"asked again against {_named(where)} alone: {again.reason} (first "
            f"look: {verdict.verdict.value}, {verdict.reason})",
            "first_look": verdict.verdict,
        }
    )


def _named(contexts: Sequence[int]) -> str:
    numbers = ", ".join(str(i + 1) for i in contexts)
    return f"context{'s' if len(contexts) > 1 else ''} {numbers}"


def holding_contexts(claims: Sequence[str], contexts: Sequence[str]) -> list[tuple[int, ...]]:
    """For each claim, the 0-based indices of the contexts where a second look may find
    its support: those holding every content word, name and number of it, with as many
    negation words in the sentence it restates as it has. Shown one passage, the 1.5B
    judge supports a copy of its sentence with one word swapped, or negated, as readily as
    the sentence: the words must say it might be there."""
    per_context = [claim_signals(claims, [context]) for context in contexts]
    return [
        tuple(
            i
            for i, signals in enumerate(per_context)
            if signals[n].overlap == 1.0 and signals[n].negations_agree and not signals[n].unbacked
        )
        if content_tokens(claim)
        else ()
        for n, claim in enumerate(claims)
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
