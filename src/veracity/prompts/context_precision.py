"""The prompt behind context_precision: is each retrieved chunk relevant to the question?"""

from __future__ import annotations

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
    as_text,
    label_table,
    preview,
    read_items,
    read_label,
    read_score,
    synonyms,
)
from veracity.prompts.template import Example, PromptTemplate, numbered_block, untrusted

NO_REFERENCE = "(no reference answer)"

RELEVANT = label_table(
    {
        True: (*YES, "relevant", "is relevant", "highly relevant", "useful", "helpful"),
        False: (*NO, "not relevant", "irrelevant", "not useful", "unrelated", "not helpful"),
    }
)


def _flag(raw: object) -> bool:
    flag = read_label(raw, RELEVANT)
    if flag is None:
        raise ValueError(f"unknown relevance label {preview(as_text(raw))}")
    return flag


def _relevance(raw: object, info: ValidationInfo) -> int:
    return round(read_score(raw, info, "relevance", 100))


class ChunkRelevanceItem(Reply):
    # The chunk's number, as asked; one missing or from 0 is placed by the reader.
    index: Annotated[
        int | None,
        BeforeValidator(lambda v: v if type(v) is int else None),
        WithJsonSchema({"minimum": 1, "type": "integer"}),
    ] = synonyms("index chunk", None)
    reason: Text = synonyms(REASONS, "")
    relevance: Annotated[int, BeforeValidator(_relevance)] = synonyms(
        "relevance score", ge=0, le=100
    )
    relevant: Annotated[bool, BeforeValidator(_flag)] = synonyms("relevant is_relevant")


def _chunks(value: object, info: ValidationInfo) -> list[ChunkRelevanceItem]:
    return read_items(ChunkRelevanceItem, value, info, "chunks")[0]


class ChunkRelevanceOutput(Reply):
    chunks: Annotated[list[ChunkRelevanceItem], BeforeValidator(_chunks)]


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
