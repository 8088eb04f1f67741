"""read_factual_reply: shapes, synonyms, scales, overall, failures."""

from __future__ import annotations

import json

import pytest

from veracity.judges.parsing import (
    ParsedValue,
    ParseFailure,
    read_factual_reply,
)
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


def test_flat_form_with_reasoning_keys() -> None:
    text = json.dumps(
        {
            "correctness": 80,
            "correctness_reasoning": "dates agree",
            "completeness_score": "60",
            "completeness_reason": "misses one point",
            "consistency": "100/100",
            "consistency explanation": "no contradiction",
        }
    )
    assert _read(text).value == EXPECTED


def test_list_form_under_a_container() -> None:
    items = [
        {"criterion": name.title(), "reasoning": body["reasoning"], "score": body["score"]}
        for name, body in NESTED.items()
    ]
    assert _read(json.dumps({"criteria": items})).value == EXPECTED


@pytest.mark.parametrize(
    ("names", "flat"),
    [(("accuracy", "coverage", "coherence"), False), (("Accuracy", "Coverage", "Coherence"), True)],
)
def test_synonyms(names: tuple[str, str, str], flat: bool) -> None:
    values = [80, 60, 100]
    body = {
        n: (v if flat else {"score": v, "reasoning": "x"})
        for n, v in zip(names, values, strict=True)
    }
    assert _scores(_read(json.dumps(body)).value) == (80, 60, 100)


@pytest.mark.parametrize("key", ["overall", "overall_score", "total", "weighted_score", "score"])
def test_an_overall_is_ignored_with_a_note(key: str) -> None:
    result = _read(json.dumps({**NESTED, key: 77}))
    assert result.value == EXPECTED
    assert any("computes the weighted score" in n and key in n for n in result.notes)


def test_other_unknown_keys_are_noted() -> None:
    result = _read(json.dumps({**NESTED, "fluency": {"score": 90}}))
    assert result.value == EXPECTED
    assert any("fluency" in n for n in result.notes)


def test_explicit_fractions_are_converted_with_a_note() -> None:
    body = {"correctness": "8/10", "completeness": "3/5", "consistency": "100%"}
    result = _read(json.dumps(body))
    assert _scores(result.value) == (80, 60, 100)
    assert any("'8/10' as 80/100" in n for n in result.notes)


def test_a_ten_scale_is_rescaled_only_when_the_reasoning_says_so() -> None:
    said = {
        "correctness": {"reasoning": "I give 8/10", "score": 8},
        "completeness": {"reasoning": "six out of ten", "score": 6},
        "consistency": {"reasoning": "fine", "score": 10},
    }
    result = _read(json.dumps(said))
    assert _scores(result.value) == (80, 60, 100)
    assert any("out of 10" in n for n in result.notes)


def test_low_scores_without_a_sign_of_scale_are_kept() -> None:
    result = _read(json.dumps({"correctness": 8, "completeness": 6, "consistency": 10}))
    assert _scores(result.value) == (8, 6, 10)
    assert any("at most 10" in n for n in result.notes)


def test_a_hundred_scale_mention_does_not_trigger_rescaling() -> None:
    body = {
        "correctness": {"reasoning": "worth 5/100 at best", "score": 5},
        "completeness": {"reasoning": "x", "score": 3},
        "consistency": {"reasoning": "x", "score": 10},
    }
    assert _scores(_read(json.dumps(body)).value) == (5, 3, 10)


def test_fractions_of_one_are_rescaled_with_a_note() -> None:
    result = _read(json.dumps({"correctness": 0.8, "completeness": 0.6, "consistency": 1}))
    assert _scores(result.value) == (80, 60, 100)
    assert any("0-1 fractions" in n for n in result.notes)


def test_decimals_are_rounded_with_a_note() -> None:
    result = _read(json.dumps({"correctness": 82.6, "completeness": 60, "consistency": 100}))
    assert result.value.correctness.score == 83
    assert any("rounded" in n for n in result.notes)


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"correctness": 80, "completeness": 60}, "'consistency'"),
        ({"correctness": {"reasoning": "x"}, "completeness": 1, "consistency": 1}, "'correctness'"),
        ({"correctness": 80}, "'completeness', 'consistency'"),
    ],
)
def test_a_missing_criterion_is_named(body: dict[str, object], named: str) -> None:
    failure = _failure(json.dumps(body))
    assert failure.kind == "schema"
    assert f"no score for {named}" in failure.message


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"correctness": 180, "completeness": 60, "consistency": 100}, "outside 0 to 100"),
        ({"correctness": -1, "completeness": 60, "consistency": 100}, "outside 0 to 100"),
        ({"correctness": "high", "completeness": 60, "consistency": 100}, "not a number"),
        ({"correctness": True, "completeness": 60, "consistency": 100}, "not a number"),
    ],
)
def test_bad_scores_are_schema_failures(body: dict[str, object], words: str) -> None:
    failure = _failure(json.dumps(body))
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
