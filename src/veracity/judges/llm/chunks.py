"""Chunk relevance: one batched call judges every retrieved chunk."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from veracity.judges.base import JudgeOutcome
from veracity.judges.llm.asking import Asker, Exchange, Unusable, ask, ask_for_all
from veracity.judges.parsing.chunks import ParsedChunks, read_chunks_reply, with_p_relevant
from veracity.judges.parsing.reader import ParseFailure
from veracity.prompts import CHUNK_RELEVANCE, render_chunk_relevance
from veracity.types import ChunkJudgement, Turn


def _parser(n_chunks: int) -> Callable[[str], ParsedChunks | ParseFailure]:
    return lambda text: read_chunks_reply(text, n_chunks)


async def judge_chunks(
    asker: Asker,
    question: str,
    contexts: Sequence[str],
    reference: str | None,
    iteration: int,
    history: Sequence[Turn] = (),
) -> JudgeOutcome[tuple[ChunkJudgement, ...]]:
    """Every chunk judged; chunks the judge skipped are asked for again (only those)."""
    exchange = Exchange()

    async def ask_round(pending: list[int]) -> tuple[Mapping[int, ChunkJudgement], Sequence[int]]:
        asked = [contexts[i] for i in pending]
        prompt = asker.prompt(
            CHUNK_RELEVANCE,
            render_chunk_relevance(question, asked, reference),
            items=len(asked),
            history=history,
        )
        parsed, reply = await ask(asker.model, prompt, _parser(len(asked)), exchange, iteration)
        parsed = with_p_relevant(parsed, reply.text, reply.tokens)
        exchange.notes.extend(parsed.notes)
        return parsed.items, parsed.missing

    try:
        judged = await ask_for_all(len(contexts), ask_round, exchange, "chunk")
    except Unusable as exc:
        return exchange.failed(asker.model, str(exc))
    # Indices as in the sample's retrieval order, not as numbered in a re-ask.
    return exchange.outcome(
        tuple(chunk.model_copy(update={"index": i}) for i, chunk in enumerate(judged))
    )
