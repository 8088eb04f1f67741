"""``veracity testset generate``: questions, reference answers and their chunks, by an LLM.

Each pass plans calls of up to ``per_call`` items of one type over a small group of
chunks, asks them all at once (through the chat model's concurrency limiter and, unless
disabled, the response cache), drops malformed and repeated items, checks every other
item against its chunks with the faithfulness judge, and keeps the supported ones. Later
passes (new chunk groups) make up for what was dropped, up to ``max_rounds``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from veracity.chat.cache import cache_max_bytes
from veracity.chat.stack import open_cache, stack_chat
from veracity.dataset import stable_sample_id
from veracity.judges import LLMJudge
from veracity.judges.rechat import rechat
from veracity.prompts.testset import QUESTION_TYPES, QuestionType
from veracity.testset.asking import ItemsReply, ask_items, run_all
from veracity.testset.checking import SupportCheck, check_support
from veracity.testset.chunking import (
    DEFAULT_OVERLAP_CHARS,
    Chunk,
    load_chunks,
)
from veracity.testset.defaults import DEFAULT_CHUNK_CHARS, DEFAULT_MIN_SUPPORT, DEFAULT_PER_CALL
from veracity.testset.keys import question_digest
from veracity.testset.parsing import DraftItem
from veracity.testset.plan import PlannedCall, plan_round, split_count
from veracity.testset.report import DROP_REASONS, GenerateReport, GenerateResult, TypeCount
from veracity.types import Sample

__all__ = [
    "DEFAULT_MAX_ROUNDS",
    "DEFAULT_PER_CALL",
    "DROP_REASONS",
    "GenerateReport",
    "GenerateResult",
    "TypeCount",
    "agenerate_testset",
    "generate_testset",
]

DEFAULT_MAX_ROUNDS = 3


class _Generator:
    """The state of one generation across its rounds: items kept per type, questions seen."""

    def __init__(
        self,
        judge: LLMJudge,
        chunks: Sequence[Chunk],
        report: GenerateReport,
        *,
        per_call: int,
        min_support: float,
    ) -> None:
        self.judge = judge
        self.chunks = chunks
        self.report = report
        self.per_call = per_call
        self.min_support = min_support
        self.kept: dict[QuestionType, list[Sample]] = {}
        self.seen: set[int] = set()

    def _drop(self, reason: str, where: str, message: str, n: int = 1) -> None:
        self.report.dropped[reason] += n
        self.report.problem(f"{where}: {reason}: {message}")

    def _candidates(
        self, calls: list[PlannedCall], replies: list[ItemsReply]
    ) -> list[tuple[PlannedCall, DraftItem, str]]:
        """The items worth checking, in plan order; the others counted as dropped."""
        found: list[tuple[PlannedCall, DraftItem, str]] = []
        for number, (call, reply) in enumerate(zip(calls, replies, strict=True), 1):
            where = f"round {call.round + 1} call {number} ({call.question_type})"
            self.report.usage += reply.usage
            if reply.parsed is None:
                self.report.failed_calls += 1
                self.report.problem(f"{where}: no items: {reply.error}")
                continue
            parsed = reply.parsed
            self.report.notes.extend(n for n in parsed.notes if n not in self.report.notes)
            counts = self.report.by_type[call.question_type]
            counts.generated += len(parsed.items) + len(parsed.malformed)
            self.report.generated += len(parsed.items) + len(parsed.malformed)
            for message in parsed.malformed:
                self._drop("malformed", where, message)
            if len(parsed.items) > call.n:
                extra = len(parsed.items) - call.n
                self._drop("surplus", where, f"{extra} item(s) beyond the {call.n} asked", extra)
            for item in parsed.items[: call.n]:
                digest = question_digest(item.question)
                if digest in self.seen:
                    self._drop("duplicate", where, repr(item.question))
                    continue
                self.seen.add(digest)
                found.append((call, item, where))
        return found

    def _sample(self, call: PlannedCall, item: DraftItem, check: SupportCheck) -> Sample:
        used = [self.chunks[call.chunks[i]] for i in item.chunks]
        contexts = tuple(chunk.text for chunk in used)
        return Sample(
            id=stable_sample_id(item.question, item.reference, contexts, None),
            question=item.question,
            contexts=contexts,
            answer="",
            reference=item.reference,
            question_type=call.question_type,
            metadata={
                "source_chunks": [chunk.id for chunk in used],
                "support": check.support,
                "generated_by": self.judge.name,
            },
        )

    async def round(self, calls: list[PlannedCall], wanted: dict[QuestionType, int]) -> None:
        replies = await run_all([ask_items(self.judge, self.chunks, call) for call in calls])
        candidates = self._candidates(calls, replies)

        async def check(call: PlannedCall, item: DraftItem) -> SupportCheck:
            contexts = [self.chunks[call.chunks[i]].text for i in item.chunks]
            return await check_support(
                self.judge, item.question, item.reference, contexts, min_support=self.min_support
            )

        checks = await run_all([check(call, item) for call, item, _ in candidates])
        for (call, item, where), result in zip(candidates, checks, strict=True):
            self.report.usage += result.usage
            kept = self.kept.setdefault(call.question_type, [])
            if result.reason is not None:
                self._drop(result.reason, where, f"{item.question!r}: {result.message}")
            elif len(kept) >= wanted[call.question_type]:
                self._drop("surplus", where, f"{item.question!r}: enough of this type")
            else:
                kept.append(self._sample(call, item, result))
                self.report.by_type[call.question_type].kept += 1


async def agenerate_testset(  # noqa: PLR0913 - the public API: generation options, each with its default
    docs: str | Path | Sequence[Chunk],
    judge: LLMJudge,
    *,
    count: int,
    seed: int = 0,
    chunk_chars: int = DEFAULT_CHUNK_CHARS,
    overlap_chars: int = DEFAULT_OVERLAP_CHARS,
    per_call: int = DEFAULT_PER_CALL,
    min_support: float = DEFAULT_MIN_SUPPORT,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    types: Sequence[QuestionType] = QUESTION_TYPES,
    cache: bool | str | Path = True,
    cache_max_size: str | int | None = None,
) -> GenerateResult:
    """Generate up to ``count`` checked test items from the documents under ``docs`` (a
    folder, a file, or chunks already made), spread evenly over ``types``.

    ``judge`` writes the items (through its chat model) and checks them (claims of the
    reference verified against its chunks; kept when at least ``min_support`` of them are
    supported). Its replies go through the response cache unless ``cache=False`` (a path
    chooses the cache file; ``cache_max_size`` bounds it, as :func:`veracity.evaluate`'s).
    The same seed, documents and settings plan the same calls, so a second run is
    answered from the cache. Samples have an empty ``answer``.
    """
    if count < 1:
        raise ValueError(f"count must be at least 1, got {count}")
    if not 0.0 <= min_support <= 1.0:
        raise ValueError(f"min_support must be between 0 and 1, got {min_support}")
    if isinstance(docs, str | Path):
        chunks = load_chunks(docs, chunk_chars=chunk_chars, overlap_chars=overlap_chars)
    else:
        chunks = list(docs)
    report = GenerateReport(count=count, seed=seed)
    report.chunks = len(chunks)
    report.documents = len({chunk.source for chunk in chunks})
    kinds = list(dict.fromkeys(types))
    if len(chunks) < 2 and "complex_reasoning" in kinds and len(kinds) > 1:
        kinds.remove("complex_reasoning")
        report.notes.append("complex_reasoning needs two chunks or more: left out")
    wanted = split_count(count, kinds)
    report.by_type = {kind: TypeCount(wanted=wanted[kind]) for kind in kinds}
    opened = open_cache(cache, max_bytes=cache_max_bytes(cache_max_size))
    cached_judge = rechat(judge, lambda chat: stack_chat(chat, cache=opened))
    generator = _Generator(cached_judge, chunks, report, per_call=per_call, min_support=min_support)
    try:
        for round_ in range(max_rounds):
            needs = {
                kind: wanted[kind] - len(generator.kept.get(kind, []))
                for kind in kinds
                if wanted[kind] > len(generator.kept.get(kind, []))
            }
            if not needs:
                break
            calls = plan_round(chunks, needs, seed=seed, round_=round_, per_call=per_call)
            report.rounds += 1
            report.calls += len(calls)
            await generator.round(calls, wanted)
    finally:
        # Connections belong to this event loop, as after a run; the judge opens new ones
        # if used again.
        await cached_judge.aclose()
        if opened is not None:
            opened.close()
    report.kept = sum(len(samples) for samples in generator.kept.values())
    samples = [sample for kind in kinds for sample in generator.kept.get(kind, [])]
    return GenerateResult(samples, report)


def generate_testset(  # noqa: PLR0913 - the public API: generation options, each with its default
    docs: str | Path | Sequence[Chunk],
    judge: LLMJudge,
    *,
    count: int,
    seed: int = 0,
    chunk_chars: int = DEFAULT_CHUNK_CHARS,
    overlap_chars: int = DEFAULT_OVERLAP_CHARS,
    per_call: int = DEFAULT_PER_CALL,
    min_support: float = DEFAULT_MIN_SUPPORT,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    types: Sequence[QuestionType] = QUESTION_TYPES,
    cache: bool | str | Path = True,
    cache_max_size: str | int | None = None,
) -> GenerateResult:
    """:func:`agenerate_testset`, run to completion (not from inside an event loop)."""
    return asyncio.run(
        agenerate_testset(
            docs, judge, count=count, seed=seed, chunk_chars=chunk_chars,
            overlap_chars=overlap_chars, per_call=per_call, min_support=min_support,
            max_rounds=max_rounds, types=types, cache=cache, cache_max_size=cache_max_size,
        )
    )  # fmt: skip
