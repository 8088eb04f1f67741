"""Read the replies of the questions without verdicts to match: claims, generated
questions, a relevance rating, an answer's classification; and what the token
log-probabilities say about the rating and the classification."""

from __future__ import annotations

from collections.abc import Sequence

from veracity.judges.parsing.probabilities import (
    choice_probabilities,
    locate_values,
    weighted_number,
)
from veracity.judges.parsing.reader import ParsedValue, ParseFailure, read_reply
from veracity.prompts.answer_relevance import QuestionGenerationOutput, RelevanceRatingOutput
from veracity.prompts.classification import ClassificationOutput
from veracity.prompts.faithfulness import ExtractedClaims
from veracity.types import TokenLogprob
from veracity.types.judgements import (
    AnswerClass,
    Classification,
    GeneratedQuestions,
    RelevanceRating,
)


def read_claims_reply(text: str) -> ParsedValue[tuple[str, ...]] | ParseFailure:
    """The claims of a claim-extraction reply (:class:`ExtractedClaims`): ``{"claims":
    []}`` is a valid, empty result."""
    read = read_reply(text, ExtractedClaims)
    return read if isinstance(read, ParseFailure) else read.map(lambda v: tuple(v.claims))


def read_questions_reply(text: str) -> ParsedValue[GeneratedQuestions] | ParseFailure:
    """The generated questions and the noncommittal flag (:class:`QuestionGenerationOutput`):
    no questions and not noncommittal is a ``"schema"`` failure."""
    read = read_reply(text, QuestionGenerationOutput)
    if isinstance(read, ParseFailure):
        return read
    return read.map(lambda v: GeneratedQuestions(**v.model_dump()))


def read_rating_reply(text: str) -> ParsedValue[RelevanceRating] | ParseFailure:
    """A direct relevance rating (:class:`RelevanceRatingOutput`) scaled to 0–1: an integer
    is on 0–100, ``"x/y"`` is x/y."""
    read = read_reply(text, RelevanceRatingOutput)
    if isinstance(read, ParseFailure):
        return read
    return read.map(lambda v: RelevanceRating(score=v.score / 100, reason=v.reason))


def read_classification_reply(text: str) -> ParsedValue[Classification] | ParseFailure:
    """An answer's class, correct, wrong or dont_know (:class:`ClassificationOutput`); an
    unknown label is a ``"schema"`` failure."""
    read = read_reply(text, ClassificationOutput)
    if isinstance(read, ParseFailure):
        return read
    return read.map(lambda v: Classification(label=AnswerClass(v.classification), reason=v.reason))


def with_expected_rating(
    rating: RelevanceRating, text: str, tokens: Sequence[TokenLogprob]
) -> RelevanceRating:
    """``rating`` with its probability-weighted value where the reply's token
    log-probabilities give one: a 0–100 integer written as one token (tokenizers that
    split numbers into digits give none)."""
    written = round(rating.score * 100)
    if written / 100 != rating.score:
        return rating
    keys = RelevanceRatingOutput.keys("score")
    (offset,) = locate_values(text, [str(written)], keys)
    expected = weighted_number(tokens, text, offset, 0, 100)
    return rating if expected is None else rating.model_copy(update={"expected": expected / 100})


_WRITTEN = {label.value: label for label in AnswerClass}


def with_label_probabilities(
    classification: Classification, text: str, tokens: Sequence[TokenLogprob]
) -> Classification:
    """``classification`` with the probability of each label where the reply's token
    log-probabilities give them (the label written as one of the three names)."""
    keys = ClassificationOutput.keys("classification")
    (offset,) = locate_values(text, [classification.label.value], keys)
    found = choice_probabilities(tokens, text, offset, _WRITTEN)
    if found is None:
        return classification
    probabilities = {label: found.get(label, 0.0) for label in AnswerClass}
    return classification.model_copy(update={"probabilities": probabilities})
