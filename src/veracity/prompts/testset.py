"""The prompt behind ``veracity testset generate``: test questions written from chunks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Final, Literal

from pydantic import BeforeValidator, Field, ValidationInfo, model_validator

from veracity.prompts._rules import data_rule
from veracity.prompts.reply import (
    Reply,
    Text,
    context,
    note,
    read_items,
    synonyms,
)
from veracity.prompts.template import Example, PromptTemplate, numbered_block

QuestionType = Literal[
    "fact_retrieval", "complex_reasoning", "contextual_summary", "creative_generation"
]

#: The four kinds of generated question, in the order the generator plans them.
QUESTION_TYPES: Final[tuple[QuestionType, ...]] = (
    "fact_retrieval",
    "complex_reasoning",
    "contextual_summary",
    "creative_generation",
)

#: How many chunks an item of each type must rest on (at least, at most).
CHUNKS_PER_ITEM: Final[dict[QuestionType, tuple[int, int]]] = {
    "fact_retrieval": (1, 2),
    "complex_reasoning": (2, 3),
    "contextual_summary": (1, 3),
    "creative_generation": (1, 3),
}


def _numbers(value: object) -> object:
    """The chunk numbers cited, each once."""
    return list(dict.fromkeys(value)) if isinstance(value, list) else value


class GeneratedTestItem(Reply):
    question: Text = Field("")
    reference: Text = synonyms("reference answer", "")
    chunks: Annotated[list[int], BeforeValidator(_numbers)] = Field([])

    @model_validator(mode="after")
    def _well_formed(self, info: ValidationInfo) -> GeneratedTestItem:
        """An item the chunks asked about (``n_chunks`` in the reader's context) support."""
        n_chunks, least = context(info, "n_chunks"), context(info, "min_chunks", 1)
        if n_chunks is None:
            return self  # an example, not a reply
        if not self.question:
            raise ValueError("no question")
        if not self.reference:
            raise ValueError(f"no reference answer for {self.question!r}")
        if not self.chunks:
            raise ValueError(f"no chunk numbers for {self.question!r}")
        if 0 in self.chunks and max(self.chunks) < n_chunks:
            note(info, "read chunk numbers given from 0 as 0-based")
            self.chunks = [n + 1 for n in self.chunks]
        outside = [n for n in self.chunks if not 1 <= n <= n_chunks]
        if outside:
            raise ValueError(f"cites chunk {outside[0]} but there are {n_chunks} chunk(s)")
        if len(self.chunks) < least:
            raise ValueError(f"rests on {len(self.chunks)} chunk(s), at least {least} needed")
        return self


def _items(value: object, info: ValidationInfo) -> list[GeneratedTestItem]:
    """The well-formed items; why each other one is malformed goes to the context."""
    if value == []:
        raise ValueError("the array of items is empty")
    read, malformed = read_items(GeneratedTestItem, value, info, "items")
    context(info, "malformed", []).extend(malformed)
    return read


class GeneratedTestItems(Reply):
    items: Annotated[list[GeneratedTestItem], BeforeValidator(_items)]


def render_testset_generation(
    chunks: Sequence[str], question_type: QuestionType, n: int
) -> dict[str, str]:
    """The blocks of :data:`TESTSET_GENERATION`: ``n`` items of ``question_type``."""
    if question_type not in QUESTION_TYPES:
        raise ValueError(f"unknown question type {question_type!r}")
    if n < 1:
        raise ValueError(f"n must be at least 1, not {n}")
    if not chunks:
        raise ValueError("at least one chunk is needed")
    return {
        "chunks": numbered_block("contexts", "context", list(chunks)),
        "n": str(n),
        "question_type": question_type,
    }


TESTSET_GENERATION = PromptTemplate(
    id="testset_generation",
    version=2,
    system=(
        "You write test questions for evaluating a retrieval-augmented question-answering "
        "system over a collection of documents. You are given numbered chunks of those "
        "documents. For every item write: `question`, self-contained and worded as a real "
        "user would ask it, never mentioning 'the chunk', 'the text' or 'the document'; "
        "`reference`, the correct and complete answer, using only facts the chunks state "
        "(no outside knowledge, no guesses, nothing the chunks do not say); and `chunks`, "
        "the numbers of the chunks the reference rests on. Every statement of the reference "
        "must be supported by the chunks it lists.\n"
        "Question types:\n"
        "- fact_retrieval: asks for one specific fact (a number, a name, a setting, a step) "
        "stated in one chunk; the reference states it in one or two sentences; 1 chunk "
        "(at most 2).\n"
        "- complex_reasoning: a multi-hop question that can only be answered by combining "
        "facts from 2 or 3 different chunks (comparing them, chaining a cause to its "
        "effect, applying a rule from one chunk to a case in another); the reference gives "
        "the answer and the facts it combines; 2 or 3 chunks.\n"
        "- contextual_summary: asks to summarise or explain what the documents say about a "
        "topic (a feature, a procedure, a policy); the reference is a short summary of two "
        "to four sentences; 1 to 3 chunks.\n"
        "- creative_generation: asks for a new piece of writing grounded in the documents "
        "(a short customer email, a checklist, a FAQ entry, instructions for a particular "
        "situation); the reference is such a piece that uses only facts the chunks state; "
        "1 to 3 chunks.\n"
        "Write items that differ from each other and cover different parts of the chunks.\n"
        + data_rule("context")
    ),
    user=(
        "{chunks}\n\n"
        "Write exactly {n} item(s) of type {question_type}, each with its question, its "
        "reference answer and the numbers of the chunks it rests on."
    ),
    output_model=GeneratedTestItems,
    examples=(
        Example(
            render_testset_generation(
                (
                    "Reset the router by holding its back button for ten seconds.",
                    "The warranty covers the router for two years from purchase.",
                ),
                "fact_retrieval",
                1,
            ),
            GeneratedTestItems(
                items=[
                    GeneratedTestItem(
                        question="How long do I hold the button to reset my router?",
                        reference="Hold the button on the back of the router for ten seconds.",
                        chunks=[1],
                    )
                ]
            ),
        ),
    ),
    max_tokens=192,
    max_tokens_per_item=320,
)
