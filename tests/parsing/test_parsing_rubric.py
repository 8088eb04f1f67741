"""read_rubric_reply: dimension matching, score forms, extras, failures, order."""

from __future__ import annotations

import json

import pytest

from veracity.judges.parsing.reader import ParsedValue, ParseFailure
from veracity.judges.parsing.replies import read_rubric_reply
from veracity.prompts import DEFAULT_RUBRIC
from veracity.types import DimensionScore, Rubric, RubricDimension

FULL = {
    "scores": [
        {"dimension": "faithfulness", "reasoning": "all supported", "score": 5},
        {"dimension": "completeness", "reasoning": "a bare list", "score": 2},
    ]
}
EXPECTED = (
    DimensionScore(name="faithfulness", score=5, reasoning="all supported"),
    DimensionScore(name="completeness", score=2, reasoning="a bare list"),
)


def _listed(body: dict[str, object]) -> dict[str, object]:
    """``{name: score}`` as the reply asks for it, a list of ``{"dimension", "score"}``."""
    items = [
        {"dimension": k, **(v if isinstance(v, dict) else {"score": v})} for k, v in body.items()
    ]
    return {"scores": items}


def _parsed(text: str, rubric: Rubric = DEFAULT_RUBRIC) -> ParsedValue[tuple[DimensionScore, ...]]:
    result = read_rubric_reply(text, rubric)
    assert isinstance(result, ParsedValue), result
    return result


def _failure(text: str, rubric: Rubric = DEFAULT_RUBRIC) -> ParseFailure:
    result = read_rubric_reply(text, rubric)
    assert isinstance(result, ParseFailure), result
    return result


@pytest.mark.parametrize(
    ("text", "method"),
    [
        (json.dumps(FULL), "strict"),
        (json.dumps(FULL["scores"]), "strict"),
        (f"```json\n{json.dumps(FULL)}\n```", "fenced"),
        (f"My grades: {json.dumps(FULL)}", "embedded"),
        (json.dumps(FULL).replace('"', "'"), "repaired"),
    ],
)
def test_json_paths(text: str, method: str) -> None:
    result = _parsed(text)
    assert result.value == EXPECTED
    assert result.method == method
    assert result.notes == ()


def test_result_follows_the_rubric_order() -> None:
    reversed_items = {"scores": list(reversed(FULL["scores"]))}
    assert _parsed(json.dumps(reversed_items)).value == EXPECTED


@pytest.mark.parametrize(
    "name", ["Faithfulness", "FAITHFULNESS", " faithfulness ", "faith-fulness", "Faith Fulness"]
)
def test_names_match_ignoring_case_spaces_and_underscores(name: str) -> None:
    body = {name: {"score": 5, "reasoning": "all supported"}, "completeness": 2}
    assert _parsed(json.dumps(_listed(body))).value[0] == EXPECTED[0]


@pytest.mark.parametrize(("written", "score"), [("4/5", 4), ("4", 4), (4.0, 4), ("8/10", 4)])
def test_score_forms(written: object, score: int) -> None:
    result = _parsed(json.dumps(_listed({"faithfulness": written, "completeness": 3})))
    assert result.value[0].score == score
    if written == "8/10":
        assert any("'8/10' as 4/5" in n for n in result.notes)


def test_extra_dimensions_are_dropped_with_notes() -> None:
    items = [*FULL["scores"], {"dimension": "clarity", "reasoning": "clear", "score": 5}]
    result = _parsed(json.dumps(items))
    assert result.value == EXPECTED
    assert any("clarity" in n and "not a dimension" in n for n in result.notes)


def test_a_custom_rubric() -> None:
    levels = {i: str(i) for i in range(1, 6)}
    rubric = Rubric(
        name="support",
        dimensions=(
            RubricDimension(name="tone", description="polite?", levels=levels),
            RubricDimension(name="next_steps", description="actionable?", levels=levels),
        ),
    )
    result = _parsed(
        json.dumps(_listed({"Next Steps": 3, "tone": {"score": 4, "reasoning": "kind"}})), rubric
    )
    assert [(s.name, s.score) for s in result.value] == [("tone", 4), ("next_steps", 3)]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"faithfulness": 6, "completeness": 3}, "less than or equal to 5"),
        ({"faithfulness": 0, "completeness": 3}, "greater than or equal to 1"),
        ({"faithfulness": 4.5, "completeness": 3}, "not an integer from 1 to 5"),
        ({"faithfulness": "7/10", "completeness": 3}, "not an integer from 1 to 5"),
        ({"faithfulness": "great", "completeness": 3}, "not a number"),
        ({"faithfulness": 4}, "no score for 'completeness'"),
        ({"clarity": 4}, "no score for 'faithfulness', 'completeness'"),
        ({"faithfulness": {"reasoning": "x"}, "completeness": 2}, "without 'scores.0.score'"),
    ],
)
def test_schema_failures_name_the_problem(body: dict[str, object], words: str) -> None:
    failure = _failure(json.dumps(_listed(body)))
    assert failure.kind == "schema"
    assert words in failure.message
    assert "('faithfulness', 'completeness')" in failure.message


def test_refusal_and_unparseable() -> None:
    assert _failure("I cannot grade this.").kind == "refusal"
    assert _failure("Pretty good answer overall.").kind == "unparseable"
