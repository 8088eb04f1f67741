"""Prompt templates: versioned, fingerprinted, with their output schemas."""

from typing import TYPE_CHECKING

from veracity._lazy import lazy_exports

__all__ = [
    "ALL_TEMPLATES",
    "ANSWER_CLASSIFICATION",
    "CHUNKS_PER_ITEM",
    "CHUNK_RELEVANCE",
    "CLAIM_EXTRACTION",
    "CLAIM_VERIFICATION",
    "CLAIM_VERIFICATION_ALONE",
    "DEFAULT_ABSTENTION_PHRASES",
    "DEFAULT_PROMPT_BUDGET",
    "DEFAULT_QUESTION_COUNT",
    "DEFAULT_RUBRIC",
    "DEFAULT_RUBRIC_TEMPLATE",
    "EVIDENCE_WORDS",
    "FACTUAL_ACCURACY",
    "HISTORY_NOTES",
    "QUESTION_GENERATION",
    "QUESTION_TYPES",
    "RELEVANCE_RATING",
    "TESTSET_GENERATION",
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
    "GeneratedTestItem",
    "GeneratedTestItems",
    "OutputSpec",
    "PromptBudget",
    "PromptTemplate",
    "PromptTooLarge",
    "QuestionGenerationOutput",
    "QuestionType",
    "RelevanceRatingOutput",
    "RenderedPrompt",
    "RepeatedTurn",
    "RubricScoresOutput",
    "RubricTemplate",
    "abstains",
    "approx_tokens",
    "checked_reply_bounds",
    "conversation_fingerprints",
    "earlier_turn",
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
    "render_testset_generation",
    "render_verification",
    "repeated_turn",
    "rubric_template",
    "untrusted",
]

if TYPE_CHECKING:
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
    from veracity.prompts.catalog import ALL_TEMPLATES, checked_reply_bounds
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
        RepeatedTurn,
        conversation_fingerprints,
        earlier_turn,
        follows_up,
        history_block,
        history_size,
        in_conversation,
        question_in_context,
        repeated_turn,
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
        CLAIM_VERIFICATION_ALONE,
        EVIDENCE_WORDS,
        ClaimJudgement,
        ClaimJudgements,
        ExtractedClaims,
        render_extraction,
        render_verification,
    )
    from veracity.prompts.rubric import (
        DEFAULT_RUBRIC,
        DEFAULT_RUBRIC_TEMPLATE,
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
else:
    __getattr__, __dir__ = lazy_exports(__name__, __file__, __all__)
