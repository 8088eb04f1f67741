"""A judge that asks a chat model, and never trusts the shape of what comes back."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from veracity.judges.base import JudgeOutcome
from veracity.judges.chat.base import ChatModel
from veracity.judges.parsing import (
    ParsedClaims,
    ParsedVerdicts,
    ParseFailure,
    RawVerdict,
    match_verdicts,
    parse_claims_reply,
    parse_verdicts_reply,
)
from veracity.prompts import (
    CLAIM_EXTRACTION,
    CLAIM_VERIFICATION,
    ChatMessage,
    RenderedPrompt,
    render_extraction,
    render_verification,
)
from veracity.transport import CallFailedError
from veracity.types import ClaimVerdict, Usage

P = TypeVar("P")

REASK = (
    "Your previous reply could not be used: {error}\n"
    "Reply again with only the JSON object the system message describes, and nothing else."
)


@dataclass(slots=True)
class _Exchange:
    """What one question to the judge cost and produced, re-asks included."""

    usage: Usage = field(default_factory=Usage)
    raw_replies: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def outcome(self, value: P | None, error: str | None, started: float) -> JudgeOutcome[P]:
        return JudgeOutcome(
            value=value,
            error=error,
            usage=self.usage,
            latency_s=time.perf_counter() - started,
            # Replies are kept whole only when something went wrong: they are the evidence.
            raw_replies=tuple(self.raw_replies) if error else (),
            notes=tuple(self.notes),
        )


class _Unusable(Exception):
    """The judge's reply could not be used even after a re-ask."""


class LLMJudge:
    """Answers the judge questions with prompts to a :class:`ChatModel`.

    Each reply goes through the tolerant parser; a reply that still can't be used earns
    one re-ask that shows the judge its parse error; verdicts missing after matching are
    asked for again (only those).
    """

    def __init__(self, model: ChatModel) -> None:
        self.model = model

    @property
    def name(self) -> str:
        return self.model.name

    @property
    def concurrency(self) -> int:
        return self.model.concurrency

    def describe(self) -> dict[str, Any]:
        return {
            **self.model.describe(),
            "prompts": {t.id: t.fingerprint for t in (CLAIM_EXTRACTION, CLAIM_VERIFICATION)},
        }

    async def aclose(self) -> None:
        await self.model.aclose()

    async def _ask(
        self,
        prompt: RenderedPrompt,
        parse: Callable[[str], P | ParseFailure],
        exchange: _Exchange,
        iteration: int,
    ) -> P:
        messages: list[ChatMessage] = list(prompt.messages)
        for attempt in (1, 2):
            try:
                reply = await self.model.complete(messages, prompt.output, iteration=iteration)
            except CallFailedError as exc:
                raise _Unusable(f"judge call failed: {exc}") from exc
            exchange.usage += reply.usage
            exchange.raw_replies.append(reply.text)
            parsed = parse(reply.text)
            if not isinstance(parsed, ParseFailure):
                if attempt == 2:
                    exchange.notes.append(f"{prompt.template_id}: usable after one re-ask")
                return parsed
            if attempt == 2:
                what = "refused" if parsed.kind == "refusal" else "gave an unusable reply"
                raise _Unusable(
                    f"judge {what} to {prompt.template_id} twice; last parse error: "
                    f"{parsed.message}"
                )
            messages += [
                ChatMessage("assistant", reply.text),
                ChatMessage("user", REASK.format(error=parsed.message)),
            ]
        raise AssertionError("unreachable")

    async def extract_claims(
        self, question: str, answer: str, *, iteration: int
    ) -> JudgeOutcome[tuple[str, ...]]:
        started, exchange = time.perf_counter(), _Exchange()
        prompt = CLAIM_EXTRACTION.render(**render_extraction(question, answer))
        try:
            parsed: ParsedClaims = await self._ask(prompt, parse_claims_reply, exchange, iteration)
        except _Unusable as exc:
            return exchange.outcome(None, str(exc), started)
        exchange.notes.extend(parsed.notes)
        return exchange.outcome(parsed.claims, None, started)

    async def verify_claims(
        self,
        claims: Sequence[str],
        contexts: Sequence[str],
        *,
        iteration: int,
        batch: bool = True,
    ) -> JudgeOutcome[tuple[ClaimVerdict, ...]]:
        started, exchange = time.perf_counter(), _Exchange()
        groups = [list(claims)] if batch else [[claim] for claim in claims]
        failure: str | None = None
        try:
            # A TaskGroup cancels the other per-claim calls once one fails: no wasted calls.
            async with asyncio.TaskGroup() as tasks:
                found = [
                    tasks.create_task(self._verify_group(group, contexts, exchange, iteration))
                    for group in groups
                ]
        except* _Unusable as failures:
            failure = str(failures.exceptions[0])
        if failure is not None:
            return exchange.outcome(None, failure, started)
        verdicts = tuple(verdict for task in found for verdict in task.result())
        return exchange.outcome(verdicts, None, started)

    async def _verify_group(
        self, claims: list[str], contexts: Sequence[str], exchange: _Exchange, iteration: int
    ) -> list[ClaimVerdict]:
        assigned: dict[int, RawVerdict] = {}
        pending = list(range(len(claims)))
        for round_ in (1, 2):
            asked = [claims[i] for i in pending]
            prompt = CLAIM_VERIFICATION.render(**render_verification(asked, tuple(contexts)))
            parsed: ParsedVerdicts = await self._ask(
                prompt, parse_verdicts_reply, exchange, iteration
            )
            exchange.notes.extend(parsed.notes)
            match = match_verdicts(asked, parsed.items)
            exchange.notes.extend(match.notes)
            for local, verdict in match.assigned.items():
                assigned[pending[local]] = verdict
            pending = [pending[local] for local in match.missing]
            if not pending:
                break
            if round_ == 1:
                exchange.notes.append(f"asked again for {len(pending)} claim(s) without a verdict")
        if pending:
            numbers = ", ".join(str(i + 1) for i in pending)
            raise _Unusable(f"judge gave no verdict for claim(s) {numbers} even when asked again")
        return [
            ClaimVerdict(
                claim=claims[i],
                verdict=assigned[i].verdict,
                reason=assigned[i].reason,
                evidence=assigned[i].evidence,
            )
            for i in range(len(claims))
        ]
