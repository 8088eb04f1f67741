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
        "index chunk", None
    )
    reason: Text = synonyms(REASONS, "")
    relevance: int = synonyms("relevance score", ge=0, le=100)
    relevant: bool = synonyms("relevant is_relevant")

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
        if index is not None and type(index) is not int:
            note(info, f"{where}: unreadable index {index!r}; matched by position")
            index = None
        return {
            "index": index,
            "reason": cls.given("reason", data),
            "relevance": score,
            "relevant": flag,
        }


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
