"""The prompt behind context_precision: is each retrieved chunk relevant to the question?"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from veracity.prompts._rules import data_rule
from veracity.prompts.template import PromptTemplate, numbered_block, untrusted

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


CHUNK_RELEVANCE = PromptTemplate(
    id="chunk_relevance",
    version=1,
    system=(
        "You judge whether retrieved context chunks are relevant to a question. Judge "
        "EVERY chunk of the <contexts> block, one entry per chunk, in the order shown, each "
        "on its own merits (not by its position). For each chunk give: `index`, the chunk's "
        "number exactly as shown in its index attribute; `reason`, one short sentence; "
        "`relevance`, an integer from 0 to 100 (100: the chunk contains what is needed to "
        "answer; 50: it helps in part; 0: it is unrelated); and `relevant`: true if the chunk "
        "is useful for answering the question and, when a reference answer is given, for "
        "arriving at that reference answer; false otherwise. If the <reference> block says "
        f"{NO_REFERENCE}, judge against the question alone.\n"
        + data_rule("question", "reference", "context")
    ),
    user=(
        "{question}\n\n{reference}\n\n{contexts}\n\n"
        "Judge every chunk, one entry per chunk, in order."
    ),
    output_model=ChunkRelevanceOutput,
)


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
