"""Prompt templates: versioned, fingerprinted, with their output schemas."""

from veracity.prompts.faithfulness import (
    CLAIM_EXTRACTION,
    CLAIM_VERIFICATION,
    ClaimJudgement,
    ClaimJudgements,
    ExtractedClaims,
    render_extraction,
    render_verification,
)
from veracity.prompts.template import (
    ChatMessage,
    OutputSpec,
    PromptTemplate,
    RenderedPrompt,
    numbered_block,
    untrusted,
)

ALL_TEMPLATES = (CLAIM_EXTRACTION, CLAIM_VERIFICATION)

__all__ = [
    "ALL_TEMPLATES",
    "CLAIM_EXTRACTION",
    "CLAIM_VERIFICATION",
    "ChatMessage",
    "ClaimJudgement",
    "ClaimJudgements",
    "ExtractedClaims",
    "OutputSpec",
    "PromptTemplate",
    "RenderedPrompt",
    "numbered_block",
    "render_extraction",
    "render_verification",
    "untrusted",
]
