"""Prompt templates: versioned, fingerprinted, with their output schemas."""

from collections.abc import Mapping

from veracity.prompts.abstention import (
    DEFAULT_ABSTENTION_PHRASES,
    abstains,
    find_abstention,
    is_courtesy,
)
from veracity.prompts.answer_relevance import (
    DEFAULT_QUESTION_COUNT,
    QUESTION_GENERATION,
    RELEVANCE_RATING,
    QuestionGenerationOutput,
    RelevanceRatingOutput,
    render_question_generation,
    render_relevance_rating,
)
from veracity.prompts.budget import (
    DEFAULT_PROMPT_BUDGET,
    Fitted,
    PromptBudget,
    PromptTooLarge,
    approx_tokens,
)
from veracity.prompts.classification import (
    ANSWER_CLASSIFICATION,
    ClassificationOutput,
    render_classification,
)
from veracity.prompts.context_precision import (
    CHUNK_RELEVANCE,
    ChunkRelevanceItem,
    ChunkRelevanceOutput,
    render_chunk_relevance,
)
from veracity.prompts.conversation import (
    HISTORY_NOTES,
    conversation_fingerprints,
    follows_up,
    history_block,
    history_size,
    in_conversation,
    question_in_context,
)
from veracity.prompts.factual_accuracy import (
    FACTUAL_ACCURACY,
    CriterionOutput,
    FactualAccuracyOutput,
    render_factual_accuracy,
)
from veracity.prompts.faithfulness import (
    CLAIM_EXTRACTION,
    CLAIM_VERIFICATION,
    ClaimJudgement,
    ClaimJudgements,
    ExtractedClaims,
    render_extraction,
    render_verification,
)
from veracity.prompts.rubric import (
    DEFAULT_RUBRIC,
    DEFAULT_RUBRIC_TEMPLATE,
    RUBRIC_ID_PREFIX,
    DimensionScoreOutput,
    RubricScoresOutput,
    RubricTemplate,
    render_rubric,
    rubric_template,
)
from veracity.prompts.template import (
    ChatMessage,
    OutputSpec,
    PromptTemplate,
    RenderedPrompt,
    numbered_block,
    untrusted,
)
from veracity.prompts.testset import (
    CHUNKS_PER_ITEM,
    QUESTION_TYPES,
    TESTSET_GENERATION,
    GeneratedTestItem,
    GeneratedTestItems,
    QuestionType,
    render_testset_generation,
)

ALL_TEMPLATES = (
    CLAIM_EXTRACTION,
    CLAIM_VERIFICATION,
    CHUNK_RELEVANCE,
    QUESTION_GENERATION,
    RELEVANCE_RATING,
    FACTUAL_ACCURACY,
    ANSWER_CLASSIFICATION,
    DEFAULT_RUBRIC_TEMPLATE,
)

# The bounds a user may set on replies (``max_tokens`` in the config file), by question.
MIN_REPLY_TOKENS, MAX_REPLY_TOKENS = 16, 32768


def checked_reply_bounds(bounds: Mapping[str, int]) -> dict[str, int]:
    """``bounds`` (question → ``max_tokens``) when every question exists and every bound
    is sensible; else a :class:`ValueError` naming the first that is not."""
    known = [t.id for t in (*ALL_TEMPLATES, TESTSET_GENERATION)]
    for question, bound in bounds.items():
        if question not in known and not question.startswith(RUBRIC_ID_PREFIX):
            raise ValueError(
                f"max_tokens: no question {question!r}; known: {', '.join(known)}, or rubric:NAME"
            )
        if isinstance(bound, bool) or not MIN_REPLY_TOKENS <= bound <= MAX_REPLY_TOKENS:
            raise ValueError(
                f"max_tokens: {question}: expected {MIN_REPLY_TOKENS}–{MAX_REPLY_TOKENS} "
                f"tokens, not {bound!r}"
            )
    return dict(bounds)


__all__ = [
    "ALL_TEMPLATES",
    "ANSWER_CLASSIFICATION",
    "CHUNK_RELEVANCE",
    "CLAIM_EXTRACTION",
    "CLAIM_VERIFICATION",
    "DEFAULT_ABSTENTION_PHRASES",
    "DEFAULT_PROMPT_BUDGET",
    "DEFAULT_QUESTION_COUNT",
    "DEFAULT_RUBRIC",
    "DEFAULT_RUBRIC_TEMPLATE",
    "FACTUAL_ACCURACY",
    "HISTORY_NOTES",
    "QUESTION_GENERATION",
    "RELEVANCE_RATING",
    "ChatMessage",
    "ChunkRelevanceItem",
    "ChunkRelevanceOutput",
    "ClaimJudgement",
    "ClaimJudgements",
    "ClassificationOutput",
    "CriterionOutput",
    "DimensionScoreOutput",
    "ExtractedClaims",
    "FactualAccuracyOutput",
    "Fitted",
    "OutputSpec",
    "PromptBudget",
    "PromptTemplate",
    "PromptTooLarge",
    "QuestionGenerationOutput",
    "RelevanceRatingOutput",
    "RenderedPrompt",
    "RubricScoresOutput",
    "RubricTemplate",
    "abstains",
    "approx_tokens",
    "checked_reply_bounds",
    "conversation_fingerprints",
    "find_abstention",
    "follows_up",
    "history_block",
    "history_size",
    "in_conversation",
    "is_courtesy",
    "numbered_block",
    "question_in_context",
    "render_chunk_relevance",
    "render_classification",
    "render_extraction",
    "render_factual_accuracy",
    "render_question_generation",
    "render_relevance_rating",
    "render_rubric",
    "render_verification",
    "rubric_template",
    "untrusted",
]

# Test-set generation. Not in ALL_TEMPLATES: the judge describes those, and its description
# is part of the response cache's key.
__all__ += [
    "CHUNKS_PER_ITEM",
    "QUESTION_TYPES",
    "TESTSET_GENERATION",
    "GeneratedTestItem",
    "GeneratedTestItems",
    "QuestionType",
    "render_testset_generation",
]
