"""Read named scores: G-Eval's factual-accuracy criteria and a rubric's dimensions, and
their probability-weighted values."""

from __future__ import annotations

from collections.abc import Sequence

from veracity.judges.parsing.probabilities import weighted_scores
from veracity.judges.parsing.reader import ParsedValue, ParseFailure, describe_output, read_reply
from veracity.prompts.factual_accuracy import CRITERIA, FactualAccuracyOutput
from veracity.prompts.rubric import RubricScoresOutput
from veracity.types import TokenLogprob
from veracity.types.judgements import DimensionScore, FactualGrades, Rubric

Scores = tuple[DimensionScore, ...]


def read_factual_reply(text: str) -> ParsedValue[FactualGrades] | ParseFailure:
    """The correctness, completeness and consistency scores (0–100) and their reasoning,
    read by :class:`FactualAccuracyOutput` ("8/10" converted, noted). Other keys are
    ignored (noted); a missing criterion is a ``"schema"`` failure naming it."""
    read = read_reply(text, FactualAccuracyOutput)
    if isinstance(read, ParseFailure):
        return read
    return read.map(lambda v: FactualGrades(**v.model_dump()))


def with_expected_criteria(
    grades: FactualGrades, text: str, tokens: Sequence[TokenLogprob]
) -> FactualGrades:
    """``grades`` read from ``text``, each criterion with its probability-weighted score
    where the reply's token log-probabilities give one (a score written as one token)."""
    written = [(name, getattr(grades, name).score) for name in CRITERIA]
    expected = weighted_scores(text, tokens, written, 0, 100)
    return grades.model_copy(
        update={
            name: getattr(grades, name).model_copy(update={"expected": value})
            for name, value in zip(CRITERIA, expected, strict=True)
            if value is not None
        }
    )


def read_rubric_reply(text: str, rubric: Rubric) -> ParsedValue[Scores] | ParseFailure:
    """One 1–5 score per dimension of ``rubric``, in the rubric's order, read by
    :class:`RubricScoresOutput` (a list, or a mapping by name; names compared ignoring
    case, spaces, hyphens and underscores; "8/10" read as 4, noted). A score that is not
    an integer 1–5 or a missing dimension is a ``"schema"`` failure naming it; extra
    dimensions are dropped with a note."""
    names = [d.name for d in rubric.dimensions]
    expected = (
        f"{describe_output(RubricScoresOutput)}, one for each dimension "
        f"({', '.join(map(repr, names))})"
    )
    context = {"rubric": rubric.name, "names": names}
    read = read_reply(text, RubricScoresOutput, context, expected=expected)
    if isinstance(read, ParseFailure):
        return read
    return read.map(
        lambda v: tuple(
            DimensionScore(name=s.dimension, score=s.score, reasoning=s.reasoning) for s in v.scores
        )
    )


def with_expected_scores(scores: Scores, text: str, tokens: Sequence[TokenLogprob]) -> Scores:
    """``scores`` read from ``text``, each with its probability-weighted 1–5 score where
    the reply's token log-probabilities give one."""
    expected = weighted_scores(text, tokens, [(s.name, s.score) for s in scores], 1, 5)
    return tuple(
        s if value is None else s.model_copy(update={"expected": value})
        for s, value in zip(scores, expected, strict=True)
    )
