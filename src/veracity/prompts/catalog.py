"""Every question a judge is asked, and the bounds a user may set on its replies."""

from collections.abc import Mapping

from veracity.prompts.answer_relevance import QUESTION_GENERATION, RELEVANCE_RATING
from veracity.prompts.classification import ANSWER_CLASSIFICATION
from veracity.prompts.context_precision import CHUNK_RELEVANCE
from veracity.prompts.factual_accuracy import FACTUAL_ACCURACY
from veracity.prompts.faithfulness import (
    CLAIM_EXTRACTION,
    CLAIM_VERIFICATION,
    CLAIM_VERIFICATION_ALONE,
)
from veracity.prompts.rubric import DEFAULT_RUBRIC_TEMPLATE, RUBRIC_ID_PREFIX
from veracity.prompts.testset import TESTSET_GENERATION

ALL_TEMPLATES = (
    CLAIM_EXTRACTION,
    CLAIM_VERIFICATION,
    CLAIM_VERIFICATION_ALONE,
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
