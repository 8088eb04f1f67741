"""The prompts behind answer_relevance: question generation and the direct fallback rating."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from veracity.prompts._rules import data_rule
from veracity.prompts.template import PromptTemplate, numbered_block, untrusted

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


QUESTION_GENERATION = PromptTemplate(
    id="question_generation",
    version=1,
    system=(
        "You read an answer and write the questions it answers. Write exactly the number of "
        "questions asked for: each a single, self-contained question to which the answer "
        "would be a direct and complete reply, worded differently from the others. The "
        "contexts are background only, to understand names and terms; the questions must "
        "be about what the answer says. Also decide whether the answer is noncommittal: "
        "evasive, vague or abstaining ('I don't know', 'I'm not sure', 'it depends' with "
        "nothing more, a refusal). Give `reason` first, one short sentence on whether and "
        "why the answer commits to a substantive reply; then `noncommittal`, true or false; "
        "then `questions`. For a noncommittal answer still write the questions it appears to "
        "respond to.\n" + data_rule("answer", "context")
    ),
    user=(
        "{answer}\n\n{contexts}\n\n"
        "Write exactly {n} questions that this answer answers, and say whether it is "
        "noncommittal."
    ),
    output_model=QuestionGenerationOutput,
)

RELEVANCE_RATING = PromptTemplate(
    id="relevance_rating",
    version=1,
    system=(
        "You rate how well an answer addresses its question, with an integer from 0 to 100: "
        "100, it directly and completely answers what was asked; 70, it answers with minor "
        "gaps or some off-topic material; 40, it addresses the question only in part or "
        "answers a related but different question; 10, it is barely related; 0, it ignores "
        "the question or evades it ('I don't know', a refusal). Rate relevance only, not "
        "whether the answer is true. Give `reason` first, one or two sentences, then "
        "`score`.\n" + data_rule("question", "answer")
    ),
    user="{question}\n\n{answer}\n\nRate how well the answer addresses the question.",
    output_model=RelevanceRatingOutput,
)


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
