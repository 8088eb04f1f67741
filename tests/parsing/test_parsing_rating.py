"""read_rating_reply: scales, text forms and failures."""

from __future__ import annotations

import json

import pytest

from veracity.judges.parsing.reader import ParsedValue, ParseFailure
from veracity.judges.parsing.replies import read_rating_reply
from veracity.types import RelevanceRating


def _read(text: str) -> ParsedValue[RelevanceRating]:
    result = read_rating_reply(text)
    assert isinstance(result, ParsedValue), result
    return result


def _failure(text: str) -> ParseFailure:
    result = read_rating_reply(text)
    assert isinstance(result, ParseFailure), result
    return result


@pytest.mark.parametrize(
    ("text", "method"),
    [
        ('{"reason": "on point", "score": 85}', "strict"),
        ('```json\n{"reason": "on point", "score": 85}\n```', "fenced"),
        ('My rating: {"reason": "on point", "score": 85} thanks', "embedded"),
        ("{'reason': 'on point', 'score': 85,}", "repaired"),
    ],
)
def test_json_paths(text: str, method: str) -> None:
    result = _read(text)
    assert result.value == RelevanceRating(score=0.85, reason="on point")
    assert result.method == method


@pytest.mark.parametrize(
    ("score", "expected"),
    [
        (85, 0.85),
        (0, 0.0),
        (100, 1.0),
        (1, 0.01),
        ("85", 0.85),
        ("85/100", 0.85),
        ("8/10", 0.8),
        ("4/5", 0.8),
        (72.5, 0.725),
    ],
)
def test_scales(score: object, expected: float) -> None:
    assert _read(json.dumps({"reason": "r", "score": score})).value.score == pytest.approx(expected)


def test_conversions_are_noted() -> None:
    assert _read('{"score": "8/10"}').notes == ("read the score '8/10' as 80/100",)
    assert _read('{"score": 85}').notes == ()


@pytest.mark.parametrize("key", ["score", "rating", "relevance"])
def test_score_key_synonyms(key: str) -> None:
    assert _read(json.dumps({key: 60})).value.score == pytest.approx(0.6)


@pytest.mark.parametrize(
    "text",
    [
        '{"score": 150}',
        '{"score": -5}',
        '{"score": "11/10"}',
        '{"score": "high"}',
        '{"score": true}',
        '{"reason": "no score"}',
    ],
)
def test_out_of_range_or_missing_is_a_schema_failure(text: str) -> None:
    failure = _failure(text)
    assert failure.kind == "schema"
    assert "'score'" in failure.message


def test_refusal_and_unparseable() -> None:
    assert _failure("As an AI language model I cannot rate this.").kind == "refusal"
    assert _failure("It is quite relevant, I think.").kind == "unparseable"
