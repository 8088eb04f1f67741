"""The prompt behind context_precision: is each retrieved chunk relevant to the question?"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated

from pydantic import BeforeValidator, ValidationInfo, WithJsonSchema

from veracity.prompts._rules import data_rule
from veracity.prompts.reply import (
    NO,
    REASONS,
    YES,
    Reply,
    Text,
    context,
    label_table,
    note,
    preview,
    read_items,
    read_label,
    read_number,
    synonyms,
)
from veracity.prompts.template import Example, PromptTemplate, numbered_block, untrusted

NO_REFERENCE = "(no reference answer)"

RELEVANT = label_table(
    {
        True: (*YES, "relevant", "is relevant", "highly relevant", "useful", "helpful", "pass"),
        False: (
            *NO,
            "not relevant",
            "irrelevant",
            "not useful",
            "unrelated",
            "not helpful",
            "fail",
        ),
    }
)
_CHUNK = re.compile(r"^\W*(?:(?:chunk|context|doc(?:ument)?|passage|item)\W*)?(\d{1,4})\W*$", re.I)


def chunk_number(raw: object) -> int | None:
    """A chunk number from ``2``, ``2.0``, ``"2"``, ``"chunk 2"`` or ``"[2]"``."""
    if isinstance(raw, float) and raw.is_integer():
        return int(raw)
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    m = _CHUNK.match(raw.strip()) if isinstance(raw, str) else None
    return None if m is None else int(m.group(1))


def _relevance(raw: object, where: str, info: ValidationInfo) -> int | None:
    """A 0–100 relevance from ``85``, ``"85"``, ``"85/100"``, ``"8/10"`` or ``0.85``."""
    number = read_number(raw)
    if number is None:
        return None
    value = number.value
    if number.scale is not None:
        value = value / number.scale * 100
        if number.scale != 100:
            note(info, f"{where}: relevance {number.text!r} read as {round(value)}/100")
    elif not number.integral and 0 <= value <= 1:
        value *= 100
        note(info, f"{where}: relevance {number.text} read as a fraction, {round(value)}/100")
    if not 0 <= value <= 100:
        note(info, f"{where}: ignored relevance {number.text!r}, outside 0-100")
        return None
    return round(value)


class ChunkRelevanceItem(Reply):
    # The chunk's number, as asked; one missing or from 0 is placed by the reader.
    index: Annotated[int | None, WithJsonSchema({"minimum": 1, "type": "integer"})] = synonyms(
        "index chunk id context chunk_index context_index chunk_id context_id number position idx",
        None,
    )
    reason: Text = synonyms(REASONS, "")
    relevance: int = synonyms("relevance relevance_score score rating", ge=0, le=100)
    relevant: bool = synonyms("relevant is_relevant verdict label useful is_useful")

    @classmethod
    def shape(cls, value: object, info: ValidationInfo) -> object:
        """The flag and the relevance, a missing or unreadable one derived from the other
        (relevance >= 50; 100 or 0), both noted."""
        where = context(info, "where", "a chunk")
        data = value if isinstance(value, dict) else {"relevant": value}  # a bare label
        written, scored = cls.given("relevant", data), cls.given("relevance", data)
        flag = None if written is None else read_label(written, RELEVANT)
        if written is not None and flag is None:
            note(info, f"{where}: unknown relevance label {preview(str(written))}")
        score = None if scored is None else _relevance(scored, where, info)
        if scored is not None and read_number(scored) is None:
            as_flag = read_label(scored, RELEVANT)  # "relevance": "relevant"
            if flag is None and as_flag is not None:
                flag = as_flag
                note(info, f"{where}: read relevance {preview(str(scored))} as the flag")
            elif as_flag is None:
                note(info, f"{where}: unreadable relevance {preview(str(scored))}")
        if flag is None and score is not None:
            flag = score >= 50
            note(info, f"{where}: no relevant flag; derived {flag} from relevance {score}")
        elif score is None and flag is not None:
            score = 100 if flag else 0
            note(info, f"{where}: no relevance; derived {score} from relevant={flag}")
        if flag is None or score is None:
            raise ValueError("it gives neither a relevant flag nor a relevance")
        index = cls.given("index", data)
        if index is not None and chunk_number(index) is None:
            note(info, f"{where}: unreadable index {index!r}; matched by position")
        reason = cls.given("reason", data)
        number = None if index is None else chunk_number(index)
        return {"index": number, "reason": reason, "relevance": score, "relevant": flag}


_POSITIONAL_KEY = re.compile(r"^\W*(?:(?:chunk|context|doc(?:ument)?|passage)\W*)?\d{1,4}\W*$")


def _chunks(value: object, info: ValidationInfo) -> list[ChunkRelevanceItem]:
    """Chunk verdicts from an array or a ``{"1": "relevant"}`` mapping, skips noted."""
    if isinstance(value, dict):
        entries = []
        for key, item in value.items():
            if _POSITIONAL_KEY.match(key.strip()) is None:
                note(info, f"ignored the key {key!r}: it names no chunk")
            elif not isinstance(item, dict):
                entries.append({"index": key, "relevant": item})
            else:  # the item's own index wins over its key's
                own = ChunkRelevanceItem.given("index", item) is not None
                entries.append(item if own else {**item, "index": key})
        value = entries
    return read_items(ChunkRelevanceItem, value, info, "chunks")[0]


class ChunkRelevanceOutput(Reply):
    chunks: Annotated[list[ChunkRelevanceItem], BeforeValidator(_chunks)] = synonyms(
        "chunks contexts results judgements judgments verdicts items evaluations"
    )

    @classmethod
    def shape(cls, value: object, info: ValidationInfo) -> object:
        """One verdict object or a ``{"1": …}`` mapping, as the ``chunks`` they are."""
        if not isinstance(value, dict) or not value:
            return value
        if isinstance(cls.given("chunks", value), list | dict):
            return value
        item = ChunkRelevanceItem
        if item.given("relevant", value) is not None or item.given("relevance", value) is not None:
            return {"chunks": [value]}
        return {"chunks": value}


def render_chunk_relevance(
    question: str, contexts: Sequence[str], reference: str | None
) -> dict[str, str]:
    """The blocks of :data:`CHUNK_RELEVANCE`; ``reference=None`` renders a placeholder."""
    return {
        "question": untrusted("question", question),
        "reference": f"<reference>\n{NO_REFERENCE}\n</reference>"
        if reference is None
        else untrusted("reference", reference),
        "contexts": numbered_block("contexts", "context", list(contexts)),
    }


CHUNK_RELEVANCE = PromptTemplate(
    id="chunk_relevance",
    version=2,
    system=(
        "You judge whether retrieved context chunks are relevant to a question. Judge "
        "every chunk, one entry per chunk, in the order shown, each on its own merits (not "
        "by its position). For each chunk give: `index`, the chunk's number; `reason`, one "
        "short sentence; `relevance`, an integer from 0 to 100 (100: the chunk contains what "
        "is needed to answer; 50: it helps in part; 0: it is unrelated); and `relevant`: "
        "true if the chunk is useful for answering the question and, when a reference "
        "answer is given, for arriving at that reference answer; false otherwise. If the "
        f"reference says {NO_REFERENCE}, judge against the question alone.\n"
        + data_rule("question", "reference", "context")
    ),
    user="{question}\n{reference}\n{contexts}",
    output_model=ChunkRelevanceOutput,
    examples=(
        Example(
            render_chunk_relevance(
                "When was the Eiffel Tower finished?",
                (
                    "The Louvre is the world's most-visited art museum.",
                    "The Eiffel Tower was finished in 1889 for the World's Fair.",
                    "The company of Gustave Eiffel designed and built the tower.",
                ),
                None,
            ),
            ChunkRelevanceOutput(
                chunks=[
                    ChunkRelevanceItem(
                        index=1,
                        reason="It is about a museum, not the tower.",
                        relevance=0,
                        relevant=False,
                    ),
                    ChunkRelevanceItem(
                        index=2,
                        reason="It gives the year the tower was finished.",
                        relevance=100,
                        relevant=True,
                    ),
                    ChunkRelevanceItem(
                        index=3,
                        reason="It is about the tower, but not about when it was finished.",
                        relevance=20,
                        relevant=False,
                    ),
                ]
            ),
        ),
    ),
    max_tokens=96,
    max_tokens_per_item=96,
)
