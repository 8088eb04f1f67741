"""Read the per-dimension scores out of a rubric reply."""

from __future__ import annotations

from collections.abc import Sequence

from veracity.judges.parsing._coerce import compact, drive, read_number
from veracity.judges.parsing._criteria import Criteria, read_criteria, read_criteria_lines
from veracity.judges.parsing._text import describe_json, preview
from veracity.judges.parsing.outcomes import ParseFailure
from veracity.judges.parsing.parsed import ParsedValue
from veracity.judges.parsing.probabilities import weighted_scores
from veracity.judges.parsing.reader import describe_output
from veracity.prompts.rubric import RubricScoresOutput
from veracity.types import TokenLogprob
from veracity.types.judgements import DimensionScore, Rubric

__all__ = ["read_rubric_reply", "with_expected_scores"]

Scores = tuple[DimensionScore, ...]

_OVERALL = {compact(k) for k in ("overall", "overall_score", "total", "average", "mean", "pass")}


def _expected(rubric: Rubric) -> str:
    names = ", ".join(repr(d.name) for d in rubric.dimensions)
    return f"{describe_output(RubricScoresOutput)}, one for each dimension ({names})"


def _score(raw: object, name: str, notes: list[str]) -> int | str:
    """A 1–5 score, or why not."""
    number = read_number(raw)
    if number is None:
        return f"the {name} score {preview(str(raw))} is not a number"
    value = number.value
    if number.scale is not None and number.scale != 5:
        value = value / number.scale * 5
        if value == round(value):
            notes.append(f"{name}: read {number.text!r} as {round(value)}/5")
    if value != round(value) or not 1 <= value <= 5:
        return f"the {name} score {number.text!r} is not an integer from 1 to 5"
    return round(value)


def _scores(
    criteria: Criteria, rubric: Rubric, method: str, notes: list[str]
) -> ParsedValue[Scores] | ParseFailure:
    expected = _expected(rubric)
    for key in criteria.unknown:
        if compact(key) in _OVERALL:
            notes.append(f"ignored the judge's {key!r}: veracity computes the overall score")
        else:
            notes.append(f"dropped {preview(key)}: not a dimension of rubric {rubric.name!r}")
    notes.extend(f"kept the first of two scores for {d}" for d in criteria.duplicates)
    names = [d.name for d in rubric.dimensions]
    missing = [n for n in names if n not in criteria.found or criteria.found[n].score is None]
    if missing:
        return ParseFailure("schema", f"{expected}; no score for {', '.join(map(repr, missing))}")
    scores: list[DimensionScore] = []
    for name in names:
        found = criteria.found[name]
        score = _score(found.score, name, notes)
        if isinstance(score, str):
            return ParseFailure("schema", f"{expected}; {score}")
        scores.append(DimensionScore(name=name, score=score, reasoning=found.reasoning))
    return ParsedValue(tuple(scores), method, tuple(notes))


def read_rubric_reply(text: str, rubric: Rubric) -> ParsedValue[Scores] | ParseFailure:
    """Read one 1–5 score per dimension of ``rubric``, in the rubric's order.

    ``{"scores": [{"dimension", "reasoning", "score"}]}`` and its synonyms, a mapping
    (``{"faithfulness": {"score": 4, "reasoning": …}}`` or ``{"faithfulness": 4}``) or
    ``Faithfulness: 4/5 - why`` lines; dimension names compared ignoring case, spaces,
    hyphens and underscores. ``"4/5"`` is read as 4 (``"8/10"`` as 4, noted); a score
    that is not an integer 1–5 or a missing dimension is a ``"schema"`` failure naming
    it; extra dimensions and an ``overall`` are dropped with a note.
    """
    aliases = {compact(d.name): d.name for d in rubric.dimensions}
    expected = _expected(rubric)

    def from_json(value: object, method: str) -> ParsedValue[Scores] | ParseFailure:
        criteria = read_criteria(value, aliases)
        if criteria is None:
            return ParseFailure("schema", f"{expected}; got {describe_json(value)}")
        return _scores(criteria, rubric, method, [])

    def from_text(reply: str) -> ParsedValue[Scores] | ParseFailure | None:
        criteria = read_criteria_lines(reply, aliases)
        if criteria is None:
            return None
        notes = ["read the scores from text lines, not JSON"]
        return _scores(criteria, rubric, "legacy_lines", notes)

    return drive(text, from_json, from_text, expected)


def with_expected_scores(scores: Scores, text: str, tokens: Sequence[TokenLogprob]) -> Scores:
    """``scores`` read from ``text``, each with its probability-weighted 1–5 score where
    the reply's token log-probabilities give one."""
    expected = weighted_scores(text, tokens, [(s.name, s.score) for s in scores], 1, 5)
    return tuple(
        s if value is None else s.model_copy(update={"expected": value})
        for s, value in zip(scores, expected, strict=True)
    )
