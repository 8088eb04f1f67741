"""Read the chunk relevance verdicts out of a context-precision reply."""

from __future__ import annotations

import re
from collections.abc import Sequence
from types import MappingProxyType
from typing import Annotated

from pydantic import BeforeValidator, Field, InstanceOf, ValidationInfo

from veracity.judges.parsing._chunk_items import RawChunk, complete, read_index
from veracity.judges.parsing._text import describe_json, plural
from veracity.judges.parsing.chunk_lines import parse_chunk_lines
from veracity.judges.parsing.outcomes import ParseFailure
from veracity.judges.parsing.parsed import ParsedChunks, ParsedValue
from veracity.judges.parsing.probabilities import choice_probabilities
from veracity.judges.parsing.reader import (
    Reading,
    Reason,
    ReplyModel,
    describe_output,
    note,
    synonyms,
    written,
)
from veracity.prompts.context_precision import ChunkRelevanceOutput
from veracity.types import TokenLogprob
from veracity.types.judgements import ChunkJudgement

__all__ = ["read_chunks_reply", "with_p_relevant"]


class _Item(ReplyModel):
    """One chunk verdict written as an object; an index absent is not in ``model_fields_set``."""

    index: object = written(
        "index chunk id context chunk_index context_index chunk_id context_id number position idx"
    )
    relevant: object = written("relevant is_relevant verdict label useful is_useful")
    relevance: object = written("relevance relevance_score score rating")
    reason: Reason = ""


_POSITIONAL_KEY = re.compile(r"^\W*(?:(?:chunk|context|doc(?:ument)?|passage)\W*)?\d{1,4}\W*$")


def _expected(n_chunks: int) -> str:
    output = describe_output(ChunkRelevanceOutput)
    return f"{output}, one per chunk ({plural(n_chunks, 'chunk')}, numbered 1 to {n_chunks})"


def _item(value: object, where: str, index: int | None, notes: list[str]) -> RawChunk | None:
    """One chunk verdict: an object, or a bare label, boolean or number."""
    if not isinstance(value, dict):
        return complete(index, value, None, "", where, notes)
    read = _Item.model_validate(value)
    if "index" in read.model_fields_set:
        index = read_index(read.index)
        if index is None:
            notes.append(f"{where}: unreadable index {read.index!r}; matched by position")
    return complete(index, read.relevant, read.relevance, read.reason, where, notes)


def _chunks(value: object, info: ValidationInfo) -> tuple[RawChunk, ...]:
    """Chunk verdicts from an array or a ``{"1": "relevant"}`` mapping, skips noted."""
    notes: list[str] = []
    read: list[RawChunk | None] = []
    if isinstance(value, list):
        read = [_item(v, f"item {n}", None, notes) for n, v in enumerate(value, 1)]
    elif isinstance(value, dict):
        for key, v in value.items():
            if _POSITIONAL_KEY.match(key.strip()) is None:
                notes.append(f"ignored the key {key!r}: it names no chunk")
            else:
                read.append(_item(v, f"the entry {key!r}", read_index(key), notes))
    else:
        raise ValueError(f"'chunks' is {describe_json(value)}")
    for skipped in notes:
        note(info, skipped)
    return tuple(item for item in read if item is not None)


class _Chunks(ReplyModel):
    chunks: Annotated[
        tuple[InstanceOf[RawChunk], ...],
        BeforeValidator(_chunks),
        Field(
            validation_alias=synonyms(
                "chunks contexts results judgements judgments verdicts items evaluations"
            )
        ),
    ]


def _shape(value: object, _: list[str]) -> object:
    """A bare array, one verdict object or a ``{"1": …}`` mapping, as the ``chunks`` they are."""
    if isinstance(value, list):
        return {"chunks": value}
    if not isinstance(value, dict) or not value:
        return value
    container = _Chunks.given("chunks", value)
    if container is not None and isinstance(container[1], list | dict):
        return value
    if any(_Item.given(name, value) for name in ("relevant", "relevance")):
        return {"chunks": [value]}
    return {"chunks": value}


def _from_lines(text: str) -> ParsedValue[tuple[RawChunk, ...]] | None:
    read = parse_chunk_lines(text)
    if read is None:
        return None
    items, notes = read
    notes.insert(0, f"read {plural(len(items), 'verdict')} from text lines, not JSON")
    return ParsedValue(tuple(items), "legacy_lines", tuple(notes))


def _match(items: list[RawChunk], n_chunks: int, notes: list[str]) -> dict[int, RawChunk]:
    """Chunk verdicts by 0-based index: by the index written, then by list position."""
    indices = [i.index for i in items if i.index is not None]
    shift = 0
    if 0 in indices and all(0 <= i < n_chunks for i in indices):
        shift = 1
        notes.append("the chunk indices look 0-based; read them as 1-based plus one")
    assigned: dict[int, RawChunk] = {}
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


def _result(read: ParsedValue[tuple[RawChunk, ...]], n_chunks: int) -> ParsedChunks | ParseFailure:
    notes = list(read.notes)
    assigned = _match(list(read.value), n_chunks, notes)
    if n_chunks and not assigned:
        telling = [n for n in notes if "dropped" in n or "skipped" in n] or notes
        why = f" ({telling[0]})" if telling else ""
        return ParseFailure(
            "schema", f"{_expected(n_chunks)}; no usable verdict for any chunk{why}"
        )
    judgements = {
        i: ChunkJudgement(index=i, relevant=r.relevant, relevance=r.relevance, reason=r.reason)
        for i, r in sorted(assigned.items())
    }
    missing = tuple(i for i in range(n_chunks) if i not in judgements)
    if missing:
        notes.append(f"no verdict for chunk(s) {', '.join(str(i + 1) for i in missing)}")
    return ParsedChunks(MappingProxyType(judgements), missing, tuple(notes), read.method)


def read_chunks_reply(text: str, n_chunks: int) -> ParsedChunks | ParseFailure:
    """Read one relevance verdict per chunk from a context-precision reply.

    JSON first (``{"chunks": [...]}``, container synonyms, a bare array of objects or of
    labels, a single object, a ``{"1": "relevant"}`` mapping), then text lines (``1.
    relevant``, ``Chunk 2: not relevant - why``, ``Verdict: 1``), then refusal detection.
    Verdicts are matched to chunks by their 1-based ``index`` (``chunk``/``id``/``context``
    keys too; out of range dropped), then by list position. A missing ``relevant`` comes
    from relevance >= 50, a missing ``relevance`` from ``relevant`` (100/0). ``items`` is
    keyed by 0-based chunk index; unjudged chunks are in ``missing``. Notes say it all.
    """
    reading = Reading(_Chunks, lambda read: read.chunks, _expected(n_chunks), _shape, _from_lines)
    read = reading(text)
    return read if isinstance(read, ParseFailure) else _result(read, n_chunks)


_WRITTEN_FLAG = re.compile(r'"relevant"\s*:\s*(?P<v>true|false)\b')
_WRITTEN_INDEX = re.compile(r'"index"\s*:\s*"?(?P<n>\d{1,4})\b')
_FLAGS = {"true": True, "false": False}


def with_p_relevant(
    parsed: ParsedChunks, text: str, tokens: Sequence[TokenLogprob]
) -> ParsedChunks:
    """``parsed`` with each chunk's P(relevant) where the reply's token log-probabilities
    give one: at each ``"relevant": true|false`` written after an ``"index": N``, the
    weight the model gave each of the two. A flag is read for a chunk only when the index
    before it names that chunk and the written value is the one parsed; 0-based indices
    are left alone (which chunk they meant was a guess)."""
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
