"""The prompt behind context_precision: is each retrieved chunk relevant to the question?"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from veracity.prompts._rules import data_rule
from veracity.prompts.template import Example, PromptTemplate, numbered_block, untrusted

NO_REFERENCE = "(no reference answer)"


class ChunkRelevanceItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    index: int = Field(ge=1)
    reason: str
    relevance: int = Field(ge=0, le=100)
    relevant: bool


class ChunkRelevanceOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    chunks: list[ChunkRelevanceItem]


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
