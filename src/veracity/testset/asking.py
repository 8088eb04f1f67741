"""Asking for generated items, and running many such calls at once."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from veracity.judges import LLMJudge
from veracity.judges.parsing.reader import ParsedValue, ParseFailure
from veracity.prompts.testset import CHUNKS_PER_ITEM, TESTSET_GENERATION, render_testset_generation
from veracity.testset.chunking import Chunk
from veracity.testset.parsing import ParsedItems, parse_items_reply
from veracity.testset.plan import PlannedCall
from veracity.types import Usage

T = TypeVar("T")


async def run_all(coroutines: list[Coroutine[Any, Any, T]]) -> list[T]:
    """Run the coroutines concurrently; the first to raise cancels the others, and its
    exception (a ``JudgeFatalError``, say) is raised as itself, not in a group."""
    try:
        async with asyncio.TaskGroup() as tasks:
            started = [tasks.create_task(coroutine) for coroutine in coroutines]
    except BaseExceptionGroup as group:
        raise group.exceptions[0] from None
    return [task.result() for task in started]


@dataclass
class ItemsReply:
    """What one generation call gave: its items, or the reason it gave none."""

    parsed: ParsedItems | None
    error: str | None
    usage: Usage


async def ask_items(judge: LLMJudge, chunks: Sequence[Chunk], call: PlannedCall) -> ItemsReply:
    """The items one planned call produced, or why it produced none (after one re-ask)."""
    texts = [chunks[i].text for i in call.chunks]
    least = min(CHUNKS_PER_ITEM[call.question_type][0], len(texts))
    outcome = await judge.ask(
        TESTSET_GENERATION,
        render_testset_generation(texts, call.question_type, call.n),
        lambda text: _read_items(text, len(texts), least),
        items=call.n,
        iteration=call.round,
    )
    return ItemsReply(outcome.value, outcome.error, outcome.usage)


def _read_items(text: str, n_chunks: int, least: int) -> ParsedValue[ParsedItems] | ParseFailure:
    # The items keep their own notes: the test-set report gathers them.
    parsed = parse_items_reply(text, n_chunks, least)
    return parsed if isinstance(parsed, ParseFailure) else ParsedValue(parsed, parsed.method)
