"""Chunk relevance from embeddings and word overlap."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from veracity.embeddings import Matrix
from veracity.judges.offline.params import OfflineParams
from veracity.text import analysis as tx
from veracity.types import ChunkJudgement

# relevance = SIMILARITY_WEIGHT · best sentence cosine + (1 − SIMILARITY_WEIGHT) · overlap
SIMILARITY_WEIGHT = 0.7


@dataclass(frozen=True, slots=True)
class ChunkScore:
    relevance: float  # 0–1
    similarity: float  # best cosine of the question (or reference) with a chunk sentence
    overlap: float  # share of the question's (or reference's) content words in the chunk
    best_sentence: str
    against: str  # "question" or "reference"


def chunk_scores(
    chunk_sentences: Sequence[Sequence[str]],
    chunks: Sequence[str],
    sentence_vectors: Sequence[npt.NDArray[np.float32]],
    queries: dict[str, tuple[str, npt.NDArray[np.float32]]],
) -> list[ChunkScore]:
    """One score per chunk: against the question and, if given, the reference (the
    better of the two counts: a chunk is useful if it answers the question or supports
    the reference answer)."""
    scores = []
    for sentences, chunk, vectors in zip(chunk_sentences, chunks, sentence_vectors, strict=True):
        chunk_words = set(tx.content_tokens(chunk)) | set(tx.all_tokens(chunk))
        best: ChunkScore | None = None
        for against, (query, vector) in queries.items():
            sims = vectors @ vector if len(sentences) else np.zeros(0, dtype=np.float32)
            k = int(np.argmax(sims)) if sims.size else -1
            similarity = max(0.0, float(sims[k])) if k >= 0 else 0.0
            words = list(dict.fromkeys(tx.content_tokens(query)))
            overlap = sum(w in chunk_words for w in words) / len(words) if words else 0.0
            relevance = SIMILARITY_WEIGHT * similarity + (1 - SIMILARITY_WEIGHT) * overlap
            score = ChunkScore(
                relevance=min(1.0, max(0.0, relevance)),
                similarity=similarity,
                overlap=overlap,
                best_sentence=sentences[k] if k >= 0 else "",
                against=against,
            )
            if best is None or score.relevance > best.relevance:
                best = score
        assert best is not None
        scores.append(best)
    return scores


def chunk_reason(score: ChunkScore, threshold: float) -> str:
    verdict = "relevant" if score.relevance >= threshold else "not relevant"
    quote = score.best_sentence[:160] + ("…" if len(score.best_sentence) > 160 else "")
    return (
        f"{verdict}: relevance {score.relevance:.2f} (threshold {threshold:.2f}) from its "
        f"closest sentence to the {score.against} (cosine {score.similarity:.2f}: {quote!r}) "
        f"and {score.overlap:.0%} of the {score.against}'s content words"
    )


Embed = Callable[[Sequence[str]], Awaitable[Matrix]]


async def judge_chunks(
    embed: Embed,
    question: str,
    contexts: Sequence[str],
    reference: str | None,
    params: OfflineParams,
) -> tuple[ChunkJudgement, ...]:
    """Every chunk's relevance (0–100) from its sentences' embeddings and word overlap with
    the question and, if given, the reference; relevant when ≥ ``params.t_chunk``."""
    per_chunk = await asyncio.to_thread(lambda: [tx.sentences(c) for c in contexts])
    queries = {"question": question}
    if reference and reference.strip():
        queries["reference"] = reference
    flat = [s for sentences in per_chunk for s in sentences]
    vectors = await embed([*queries.values(), *flat])
    query_vectors = {k: (q, vectors[i]) for i, (k, q) in enumerate(queries.items())}
    blocks, start = [], len(queries)
    for sentences in per_chunk:
        blocks.append(vectors[start : start + len(sentences)])
        start += len(sentences)
    scores = chunk_scores(per_chunk, contexts, blocks, query_vectors)
    return tuple(
        ChunkJudgement(
            index=i,
            relevant=score.relevance >= params.t_chunk,
            relevance=round(100 * score.relevance),
            reason=chunk_reason(score, params.t_chunk) if per_chunk[i] else "the chunk is empty",
        )
        for i, score in enumerate(scores)
    )
