"""The prompts behind answer_relevance: question generation and the direct fallback rating."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from pydantic import BeforeValidator, Field, ValidationInfo, WithJsonSchema, model_validator

from veracity.prompts._rules import data_rule
from veracity.prompts.reply import (
    NO,
    REASONS,
    YES,
    Reply,
    Text,
    as_text,
    describe_json,
    label_table,
    note,
    preview,
    read_label,
    read_score,
    synonyms,
)
from veracity.prompts.template import Example, PromptTemplate, numbered_block, untrusted

DEFAULT_QUESTION_COUNT = 3


NONCOMMITTAL = label_table({True: YES, False: NO})


def _flag(raw: object) -> bool:
    flag = read_label(raw, NONCOMMITTAL)
    if flag is None:
        raise ValueError(f"{preview(as_text(raw))} is not true/false")
    return flag


def _questions(value: object, info: ValidationInfo) -> list[str]:
    """Question strings, skips and duplicates noted."""
    if not isinstance(value, list):
        raise ValueError(f"'questions' is {describe_json(value)}, not an array")
    found: list[str] = []
    for n, item in enumerate(value, 1):
        if not isinstance(item, str) or not item.strip():
            note(info, f"skipped item {n} of the questions: not a question string")
        elif item.strip() in found:
            note(info, f"dropped duplicate question {preview(item)}")
        else:
            found.append(item.strip())
    return found


class QuestionGenerationOutput(Reply):
    reason: Text = synonyms(REASONS, "")
    noncommittal: Annotated[bool, BeforeValidator(_flag)] = synonyms(
        "noncommittal non_committal", False
    )
    questions: Annotated[list[str], BeforeValidator(_questions)] = Field([])

    @model_validator(mode="after")
    def _some_questions(self) -> QuestionGenerationOutput:
        if not self.questions and not self.noncommittal:
            raise ValueError("got no questions")
        return self


class RelevanceRatingOutput(Reply):
    reason: Text = synonyms(REASONS, "")
    score: Annotated[
        int | float,
        BeforeValidator(lambda raw, info: read_score(raw, info, "score", 100)),
        WithJsonSchema({"maximum": 100, "minimum": 0, "type": "integer"}),
    ] = synonyms("score rating relevance", ge=0, le=100)


def render_question_generation(
    answer: str, contexts: Sequence[str], n: int = DEFAULT_QUESTION_COUNT
) -> dict[str, str]:
    """The blocks of :data:`QUESTION_GENERATION`, asking for ``n`` questions."""
    if n < 1:
        raise ValueError(f"n must be at least 1, not {n}")
    return {
        "answer": untrusted("answer", answer),
        "contexts": numbered_block("contexts", "context", list(contexts)),
        "n": str(n),
    }


def render_relevance_rating(question: str, answer: str) -> dict[str, str]:
    """The blocks of :data:`RELEVANCE_RATING`."""
    return {"question": untrusted("question", question), "answer": untrusted("answer", answer)}


QUESTION_GENERATION = PromptTemplate(
    id="question_generation",
    version=2,
    system=(
        "You read an answer and write the questions it answers. Write exactly the number of "
        "questions asked for: each a single, self-contained question to which the answer "
        "would be a direct and complete reply, worded differently from the others. The "
        "contexts are background only, to understand names and terms; the questions must "
        "be about what the answer says. Also decide whether the answer is noncommittal: "
        'evasive, vague or abstaining ("I don\'t know", "I\'m not sure", "it depends" '
        "with nothing more, a refusal). Give `reason` first, one short sentence on whether "
        "the answer commits to a substantive reply; then `noncommittal`, true or false; then "
        "`questions`. For a noncommittal answer still write the questions it appears to "
        "respond to.\n" + data_rule("answer", "context")
    ),
    user="{answer}\n{contexts}\nWrite exactly {n} questions.",
    output_model=QuestionGenerationOutput,
    examples=(
        Example(
            render_question_generation(
                "The Eiffel Tower was finished in 1889, for the World's Fair.",
                ("The Eiffel Tower was finished in 1889 for the World's Fair in Paris.",),
                3,
            ),
            QuestionGenerationOutput(
                reason="The answer commits to a year and a reason.",
                noncommittal=False,
                questions=[
                    "When was the Eiffel Tower finished?",
                    "For which event was the Eiffel Tower completed?",
                    "In what year and for what occasion was the Eiffel Tower built?",
                ],
            ),
        ),
        Example(
            render_question_generation(
                "I'm not sure, it depends on what you mean.",
                ("The Eiffel Tower is 330 metres tall.",),
                3,
            ),
            QuestionGenerationOutput(
                reason="The answer abstains and commits to nothing.",
                noncommittal=True,
                questions=[
                    "How tall is the Eiffel Tower?",
                    "What is the height of the Eiffel Tower?",
                    "How high does the Eiffel Tower reach?",
                ],
            ),
        ),
    ),
    max_tokens=384,
)

RELEVANCE_RATING = PromptTemplate(
    id="relevance_rating",
    version=2,
    system=(
        "You rate how well an answer addresses its question, with an integer from 0 to 100: "
        "100, it directly and completely answers what was asked; 70, it answers with minor "
        "gaps or some off-topic material; 40, it addresses the question only in part or "
        "answers a related but different question; 10, it is barely related; 0, it ignores "
        'the question or evades it ("I don\'t know", a refusal). Rate relevance only, not '
        "whether the answer is true. Give `reason` first, one or two sentences, then "
        "`score`.\n" + data_rule("question", "answer")
    ),
    user="{question}\n{answer}",
    output_model=RelevanceRatingOutput,
    examples=(
        Example(
            render_relevance_rating(
                "When was the Eiffel Tower finished?", "It was finished in 1889."
            ),
            RelevanceRatingOutput(reason="It answers exactly what was asked.", score=100),
        ),
        Example(
            render_relevance_rating(
                "When was the Eiffel Tower finished?", "The Eiffel Tower is 330 metres tall."
            ),
            RelevanceRatingOutput(
                reason="It is about the tower but says nothing about when it was finished.",
                score=10,
            ),
        ),
    ),
    max_tokens=256,
)
