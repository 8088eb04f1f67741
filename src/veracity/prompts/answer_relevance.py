"""The prompts behind answer_relevance: question generation and the direct fallback rating."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from veracity.prompts._rules import data_rule
from veracity.prompts.template import Example, PromptTemplate, numbered_block, untrusted

DEFAULT_QUESTION_COUNT = 3


class QuestionGenerationOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: str
    noncommittal: bool
    questions: list[str]


class RelevanceRatingOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: str
    score: int = Field(ge=0, le=100)


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
