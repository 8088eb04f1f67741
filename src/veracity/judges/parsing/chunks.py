"""Read the chunk relevance verdicts out of a context-precision reply, and P(relevant)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from veracity.judges.parsing.probabilities import choice_probabilities
from veracity.judges.parsing.reader import ParseFailure, describe_output, read_reply
from veracity.prompts.context_precision import ChunkRelevanceItem, ChunkRelevanceOutput
from veracity.types import TokenLogprob
from veracity.types.judgements import ChunkJudgement


@dataclass(frozen=True)
class ParsedChunks:
    """Chunk judgements by 0-based chunk index; ``missing`` lists chunks left unjudged."""

    items: Mapping[int, ChunkJudgement]
    missing: tuple[int, ...]
    notes: tuple[str, ...] = ()
    method: str = ""


def _match(
    items: Sequence[ChunkRelevanceItem], n_chunks: int, notes: list[str]
) -> dict[int, ChunkRelevanceItem]:
    """Chunk verdicts by 0-based index: by the index written, then by list position."""
    indices = [i.index for i in items if i.index is not None]
    shift = 0
    if 0 in indices and all(0 <= i < n_chunks for i in indices):
        shift = 1
        notes.append("the chunk indices look 0-based; read them as 1-based plus one")
    assigned: dict[int, ChunkRelevanceItem] = {}
    for item in items:
        if item.index is None:
            continue
        number = item.index + shift
        if not 1 <= number <= n_chunks:
            notes.append(f"dropped the verdict for chunk {number}: there are only {n_chunks}")
        elif number - 1 in assigned:
            notes.append(f"dropped a second verdict for chunk {number}; kept the first")
        else:
            assigned[number - 1] = item
    for position, item in enumerate(items):
        if item.index is not None:
            continue
        if position < n_chunks and position not in assigned:
            assigned[position] = item
        else:
            notes.append(f"dropped verdict {position + 1} without an index: no free chunk there")
    return assigned


def read_chunks_reply(text: str, n_chunks: int) -> ParsedChunks | ParseFailure:
    """One relevance verdict per chunk, read by :class:`ChunkRelevanceOutput` and matched
    to the chunks by their 1-based ``index`` (out of range dropped), then by position;
    ``items`` is keyed by 0-based chunk index, unjudged chunks are ``missing``."""
    s = "" if n_chunks == 1 else "s"
    expected = (
        f"{describe_output(ChunkRelevanceOutput)}, one per chunk "
        f"({n_chunks} chunk{s}, numbered 1 to {n_chunks})"
    )
    read = read_reply(text, ChunkRelevanceOutput, expected=expected)
    if isinstance(read, ParseFailure):
        return read
    notes = list(read.notes)
    assigned = _match(read.value.chunks, n_chunks, notes)
    if n_chunks and not assigned:
        telling = [n for n in notes if "dropped" in n or "skipped" in n] or notes
        why = f" ({telling[0]})" if telling else ""
        return ParseFailure("schema", f"{expected}; no usable verdict for any chunk{why}")
    judgements = {
        i: ChunkJudgement(index=i, relevant=r.relevant, relevance=r.relevance, reason=r.reason)
        for i, r in sorted(assigned.items())
    }
    missing = tuple(i for i in range(n_chunks) if i not in judgements)
    if missing:
        notes.append(f"no verdict for chunk(s) {', '.join(str(i + 1) for i in missing)}")
    return ParsedChunks(MappingProxyType(judgements), missing, tuple(notes), read.method)


_WRITTEN_FLAG = re.compile(r'"relevant"\s*:\s*(?P<v>true|false)\b')
_WRITTEN_INDEX = re.compile(r'"index"\s*:\s*"?(?P<n>\d{1,4})\b')
_FLAGS = {"true": True, "false": False}


def with_p_relevant(
    parsed: ParsedChunks, text: str, tokens: Sequence[TokenLogprob]
) -> ParsedChunks:
    """``parsed`` with each chunk's P(relevant) where the reply's token log-probabilities
    give one: the weights of true and false at each ``"relevant": true|false`` whose
    ``"index": N`` before it names a chunk (from 1) whose flag was read as written."""
    if not tokens:
        return parsed
    updated = dict(parsed.items)
    cursor = 0
    for flag in _WRITTEN_FLAG.finditer(text):
        indices = list(_WRITTEN_INDEX.finditer(text, cursor, flag.start()))
        cursor = flag.end()
        if not indices or (number := int(indices[-1].group("n"))) < 1:
            continue
        chunk = updated.get(number - 1)
        if chunk is None or chunk.relevant != _FLAGS[flag.group("v")]:
            continue
        found = choice_probabilities(tokens, text, flag.start("v"), _FLAGS)
        if found is not None:
            updated[number - 1] = chunk.model_copy(update={"p_relevant": found.get(True, 0.0)})
    return ParsedChunks(MappingProxyType(updated), parsed.missing, parsed.notes, parsed.method)
