"""Chunk relevance: one batched call judges every retrieved chunk."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from veracity.judges.base import JudgeOutcome
from veracity.judges.chat.base import ChatModel
from veracity.judges.llm.asking import Exchange, Unusable, ask
from veracity.judges.parsing import ParsedChunks, ParseFailure, parse_chunks_reply
from veracity.prompts import CHUNK_RELEVANCE, render_chunk_relevance
from veracity.types import ChunkJudgement


def _parser(n_chunks: int) -> Callable[[str], ParsedChunks | ParseFailure]:
    return lambda text: parse_chunks_reply(text, n_chunks)


async def judge_chunks(
    model: ChatModel,
    question: str,
    contexts: Sequence[str],
    reference: str | None,
    iteration: int,
) -> JudgeOutcome[tuple[ChunkJudgement, ...]]:
    """Every chunk judged; chunks the judge skipped are asked for again (only those)."""
    exchange = Exchange()
    found: dict[int, ChunkJudgement] = {}
    pending = list(range(len(contexts)))
    try:
        for round_ in (1, 2):
            asked = [contexts[i] for i in pending]
            prompt = CHUNK_RELEVANCE.render(**render_chunk_relevance(question, asked, reference))
            parsed = await ask(model, prompt, _parser(len(asked)), exchange, iteration)
            exchange.notes.extend(parsed.notes)
            for local, judgement in parsed.items.items():
                found[pending[local]] = judgement.model_copy(update={"index": pending[local]})
            pending = [pending[local] for local in parsed.missing]
            if not pending:
                break
            if round_ == 1:
                exchange.notes.append(f"asked again for {len(pending)} chunk(s) without a verdict")
        if pending:
            numbers = ", ".join(str(i + 1) for i in pending)
            raise Unusable(f"judge gave no relevance for chunk(s) {numbers} even when asked again")
    except Unusable as exc:
        return exchange.outcome(None, str(exc))
    return exchange.outcome(tuple(found[i] for i in range(len(contexts))))
