"""Read the per-dimension scores out of a rubric reply."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import Field, ValidationInfo, create_model, model_validator

from veracity.judges.parsing._coerce import Number, compact
from veracity.judges.parsing._criteria import WrittenScore, criteria_reading
from veracity.judges.parsing._text import key_of, preview
from veracity.judges.parsing.outcomes import ParseFailure
from veracity.judges.parsing.parsed import ParsedValue
from veracity.judges.parsing.probabilities import weighted_scores
from veracity.judges.parsing.reader import Reading, ReplyModel, describe_output, note
from veracity.prompts.rubric import RubricScoresOutput
from veracity.types import TokenLogprob
from veracity.types.judgements import DimensionScore, Rubric

__all__ = ["read_rubric_reply", "with_expected_scores"]

Scores = tuple[DimensionScore, ...]

_OVERALL = {compact(k) for k in ("overall", "overall_score", "total", "average", "mean", "pass")}


def _expected(rubric: Rubric) -> str:
    names = ", ".join(repr(d.name) for d in rubric.dimensions)
    return f"{describe_output(RubricScoresOutput)}, one for each dimension ({names})"


def _one_to_five(number: Number, name: str, notes: list[str]) -> int:
    """A 1–5 score (``"8/10"`` is 4, noted); :class:`ValueError` when it is not one."""
    value = number.value
    if number.scale is not None and number.scale != 5:
        value = value / number.scale * 5
        if value == round(value):
            notes.append(f"{name}: read {number.text!r} as {round(value)}/5")
    if value != round(value) or not 1 <= value <= 5:
        raise ValueError(f"the {name} score {number.text!r} is not an integer from 1 to 5")
    return round(value)


class _Dimensions(ReplyModel):
    """One :class:`WrittenScore` a dimension, in the rubric's order (fields made for each
    rubric by :func:`_reading`, named ``d0``, ``d1``…, each under its dimension's name)."""

    def scores(self, names: Sequence[str], notes: list[str]) -> Scores:
        written: list[WrittenScore] = [getattr(self, f"d{i}") for i in range(len(names))]
        return tuple(
            DimensionScore(
                name=name, score=_one_to_five(w.score, name, notes), reasoning=w.reasoning
            )
            for name, w in zip(names, written, strict=True)
        )

    @model_validator(mode="after")
    def _one_to_five_each(self, info: ValidationInfo) -> _Dimensions:
        names = info.context["names"] if isinstance(info.context, dict) else ()
        notes: list[str] = []
        self.scores(names, notes)  # raises when a score is not 1 to 5
        for said in notes:
            note(info, said)
        return self


def _reading(rubric: Rubric) -> Reading[_Dimensions, Scores]:
    names = [d.name for d in rubric.dimensions]
    fields: dict[str, Any] = {
        f"d{i}": (WrittenScore, Field(validation_alias=key_of(name)))
        for i, name in enumerate(names)
    }
    model = create_model(f"Rubric_{rubric.name}", __base__=_Dimensions, **fields)

    def unknown(key: str) -> str:
        if compact(key) in _OVERALL:
            return f"ignored the judge's {key!r}: veracity computes the overall score"
        return f"dropped {preview(key)}: not a dimension of rubric {rubric.name!r}"

    return criteria_reading(
        model,
        lambda read: read.scores(names, []),
        _expected(rubric),
        names,
        unknown,
        context={"names": names},
    )


def read_rubric_reply(text: str, rubric: Rubric) -> ParsedValue[Scores] | ParseFailure:
    """Read one 1–5 score per dimension of ``rubric``, in the rubric's order.

    ``{"scores": [{"dimension", "reasoning", "score"}]}`` and its synonyms, a mapping
    (``{"faithfulness": {"score": 4, "reasoning": …}}`` or ``{"faithfulness": 4}``) or
    ``Faithfulness: 4/5 - why`` lines; dimension names compared ignoring case, spaces,
    hyphens and underscores. ``"4/5"`` is read as 4 (``"8/10"`` as 4, noted); a score
    that is not an integer 1–5 or a missing dimension is a ``"schema"`` failure naming
    it; extra dimensions and an ``overall`` are dropped with a note.
    """
    return _reading(rubric)(text)


def with_expected_scores(scores: Scores, text: str, tokens: Sequence[TokenLogprob]) -> Scores:
    """``scores`` read from ``text``, each with its probability-weighted 1–5 score where
    the reply's token log-probabilities give one."""
    expected = weighted_scores(text, tokens, [(s.name, s.score) for s in scores], 1, 5)
    return tuple(
        s if value is None else s.model_copy(update={"expected": value})
        for s, value in zip(scores, expected, strict=True)
    )
