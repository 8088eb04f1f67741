"""read_factual_reply: paths, synonyms, scales, failures."""

from __future__ import annotations

import json
from collections.abc import Mapping

import pytest

from veracity.judges.parsing.reader import ParsedValue, ParseFailure
from veracity.judges.parsing.replies import read_factual_reply
from veracity.types import CriterionScore, FactualGrades

NESTED = {
    "correctness": {"reasoning": "dates agree", "score": 80},
    "completeness": {"reasoning": "misses one point", "score": 60},
    "consistency": {"reasoning": "no contradiction", "score": 100},
}
EXPECTED = FactualGrades(
    correctness=CriterionScore(score=80, reasoning="dates agree"),
    completeness=CriterionScore(score=60, reasoning="misses one point"),
    consistency=CriterionScore(score=100, reasoning="no contradiction"),
)


def _read(text: str) -> ParsedValue[FactualGrades]:
    result = read_factual_reply(text)
    assert isinstance(result, ParsedValue), result
    return result


def _failure(text: str) -> ParseFailure:
    result = read_factual_reply(text)
    assert isinstance(result, ParseFailure), result
    return result


def _nested(body: Mapping[str, object]) -> dict[str, object]:
    """``{name: score}`` as the reply asks for it, ``{name: {"reasoning", "score"}}``."""
    return {
        k: v if isinstance(v, dict) else {"reasoning": "x", "score": v} for k, v in body.items()
    }


def _scores(grades: FactualGrades) -> tuple[int, int, int]:
    return grades.correctness.score, grades.completeness.score, grades.consistency.score


@pytest.mark.parametrize(
    ("text", "method"),
    [
        (json.dumps(NESTED), "strict"),
        (f"```json\n{json.dumps(NESTED)}\n```", "fenced"),
        (f"Evaluation follows. {json.dumps(NESTED)}", "embedded"),
        (json.dumps(NESTED)[:-1] + ",}", "repaired"),
    ],
)
def test_json_paths(text: str, method: str) -> None:
    result = _read(text)
    assert result.value == EXPECTED
    assert result.method == method
    assert result.notes == ()


def test_synonyms() -> None:
    body = {
        n: {"score": v, "reasoning": "x"}
        for n, v in [("accuracy", 80), ("Coverage", 60), ("coherence", 100)]
    }
    assert _scores(_read(json.dumps(body)).value) == (80, 60, 100)


@pytest.mark.parametrize(("key", "value"), [("overall", 77), ("fluency", {"score": 90})])
def test_unknown_keys_are_ignored(key: str, value: object) -> None:
    assert _read(json.dumps({**NESTED, key: value})).value == EXPECTED


def test_explicit_fractions_are_converted_with_a_note() -> None:
    body = {"correctness": "8/10", "completeness": "3/5", "consistency": "1/1"}
    result = _read(json.dumps(_nested(body)))
    assert _scores(result.value) == (80, 60, 100)
    assert any("'8/10' as 80/100" in n for n in result.notes)


def test_low_scores_are_taken_as_written() -> None:
    body = {"correctness": 8, "completeness": 6, "consistency": 10}
    result = _read(json.dumps(_nested(body)))
    assert _scores(result.value) == (8, 6, 10)
    assert result.notes == ()


def test_decimals_are_rounded_with_a_note() -> None:
    body = {"correctness": 82.6, "completeness": 60, "consistency": 100}
    result = _read(json.dumps(_nested(body)))
    assert result.value.correctness.score == 83
    assert any("rounded" in n for n in result.notes)


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"correctness": 80, "completeness": 60}, "'consistency'"),
        (
            {"correctness": {"reasoning": "x"}, "completeness": 1, "consistency": 1},
            "'correctness.score'",
        ),
        ({"correctness": 80}, "'completeness'"),
    ],
)
def test_a_missing_criterion_is_named(body: dict[str, object], named: str) -> None:
    failure = _failure(json.dumps(_nested(body)))
    assert failure.kind == "schema"
    assert f"without {named}" in failure.message


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"correctness": 180, "completeness": 60, "consistency": 100}, "less than or equal to 100"),
        ({"correctness": -1, "completeness": 60, "consistency": 100}, "greater than or equal to 0"),
        ({"correctness": "high", "completeness": 60, "consistency": 100}, "not a number"),
        ({"correctness": True, "completeness": 60, "consistency": 100}, "not a number"),
    ],
)
def test_bad_scores_are_schema_failures(body: dict[str, object], words: str) -> None:
    failure = _failure(json.dumps(_nested(body)))
    assert failure.kind == "schema"
    assert words in failure.message
    assert "integer 0 to 100" in failure.message


def test_wrong_shape_is_a_schema_failure() -> None:
    failure = _failure("[1, 2, 3]")
    assert failure.kind == "schema"
    assert "'correctness'" in failure.message


def test_refusal_and_unparseable() -> None:
    assert _failure("I'm unable to grade this answer.").kind == "refusal"
    assert _failure("The answer looks good overall.").kind == "unparseable"
