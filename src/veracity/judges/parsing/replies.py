"""Read the replies of the questions without verdicts to match (claims, generated
questions, a relevance rating, an answer's classification, G-Eval's factual-accuracy
criteria, a rubric's scores), and what the token log-probabilities say about them."""

from __future__ import annotations

from collections.abc import Sequence

from veracity.judges.parsing.probabilities import (
    choice_probabilities,
    locate_values,
    weighted_number,
    weighted_scores,
)
from veracity.judges.parsing.reader import ParsedValue, ParseFailure, describe_output, read_reply
from veracity.prompts.answer_relevance import QuestionGenerationOutput, RelevanceRatingOutput
from veracity.prompts.classification import ClassificationOutput
from veracity.prompts.factual_accuracy import CRITERIA, FactualAccuracyOutput
from veracity.prompts.faithfulness import ExtractedClaims
from veracity.prompts.rubric import RubricScoresOutput
from veracity.types import TokenLogprob
from veracity.types.judgements import (
    AnswerClass,
    Classification,
    DimensionScore,
    FactualGrades,
    GeneratedQuestions,
    RelevanceRating,
    Rubric,
)

Scores = tuple[DimensionScore, ...]


def read_claims_reply(text: str) -> ParsedValue[tuple[str, ...]] | ParseFailure:
    """The claims of a claim-extraction reply; ``{"claims": []}`` is a valid, empty one."""
    return read_reply(text, ExtractedClaims).map(lambda v: tuple(v.claims))


def read_questions_reply(text: str) -> ParsedValue[GeneratedQuestions] | ParseFailure:
    """The generated questions and the noncommittal flag."""
    return read_reply(text, QuestionGenerationOutput).map(
        lambda v: GeneratedQuestions(**v.model_dump())
    )


def read_rating_reply(text: str) -> ParsedValue[RelevanceRating] | ParseFailure:
    """A direct relevance rating (0–100, or ``"x/y"``) scaled to 0–1."""
    return read_reply(text, RelevanceRatingOutput).map(
        lambda v: RelevanceRating(score=v.score / 100, reason=v.reason)
    )


def read_classification_reply(text: str) -> ParsedValue[Classification] | ParseFailure:
    """An answer's class: correct, wrong or dont_know."""
    return read_reply(text, ClassificationOutput).map(
        lambda v: Classification(label=AnswerClass(v.classification), reason=v.reason)
    )


def read_factual_reply(text: str) -> ParsedValue[FactualGrades] | ParseFailure:
    """The correctness, completeness and consistency scores (0–100) and their reasoning."""
    return read_reply(text, FactualAccuracyOutput).map(lambda v: FactualGrades(**v.model_dump()))


def read_rubric_reply(text: str, rubric: Rubric) -> ParsedValue[Scores] | ParseFailure:
    """One 1–5 score per dimension of ``rubric``, in the rubric's order."""
    names = [d.name for d in rubric.dimensions]
    expected = (
        f"{describe_output(RubricScoresOutput)}, one for each dimension "
        f"({', '.join(map(repr, names))})"
    )
    context = {"rubric": rubric.name, "names": names}
    return read_reply(text, RubricScoresOutput, context, expected=expected).map(
        lambda v: tuple(
            DimensionScore(name=s.dimension, score=s.score, reasoning=s.reasoning) for s in v.scores
        )
    )


# ---------------------------------------------------------------- log-probabilities


def with_expected_rating(
    rating: RelevanceRating, text: str, tokens: Sequence[TokenLogprob]
) -> RelevanceRating:
    """``rating`` with its probability-weighted value where the reply's token
    log-probabilities give one: a 0–100 integer written as one token (tokenizers that
    split numbers into digits give none)."""
    written = round(rating.score * 100)
    if written / 100 != rating.score:
        return rating
    (offset,) = locate_values(text, [str(written)], RelevanceRatingOutput.keys("score"))
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


def with_expected_criteria(
    grades: FactualGrades, text: str, tokens: Sequence[TokenLogprob]
) -> FactualGrades:
    """``grades``, each criterion with its probability-weighted score where the reply's
    token log-probabilities give one (a score written as one token)."""
    written = [(name, getattr(grades, name).score) for name in CRITERIA]
    expected = weighted_scores(text, tokens, written, 0, 100)
    return grades.model_copy(
        update={
            name: getattr(grades, name).model_copy(update={"expected": value})
            for name, value in zip(CRITERIA, expected, strict=True)
            if value is not None
        }
    )


def with_expected_scores(scores: Scores, text: str, tokens: Sequence[TokenLogprob]) -> Scores:
    """``scores``, each with its probability-weighted 1–5 score where the reply's token
    log-probabilities give one."""
    expected = weighted_scores(text, tokens, [(s.name, s.score) for s in scores], 1, 5)
    return tuple(
        s if value is None else s.model_copy(update={"expected": value})
        for s, value in zip(scores, expected, strict=True)
    )
