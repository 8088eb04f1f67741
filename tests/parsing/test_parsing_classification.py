"""read_classification_reply: labels, synonyms, text, failures."""

from __future__ import annotations

import json

import pytest

from veracity.judges.parsing.reader import ParsedValue, ParseFailure
from veracity.judges.parsing.replies import read_classification_reply
from veracity.types import AnswerClass, Classification

C, W, D = AnswerClass.CORRECT, AnswerClass.WRONG, AnswerClass.DONT_KNOW


def _read(text: str) -> ParsedValue[Classification]:
    result = read_classification_reply(text)
    assert isinstance(result, ParsedValue), result
    return result


def _failure(text: str) -> ParseFailure:
    result = read_classification_reply(text)
    assert isinstance(result, ParseFailure), result
    return result


FULL = {"reason": "same author", "classification": "correct"}


@pytest.mark.parametrize(
    ("text", "method"),
    [
        (json.dumps(FULL), "strict"),
        (f"```\n{json.dumps(FULL)}\n```", "fenced"),
        (f"Result: {json.dumps(FULL)}.", "embedded"),
        ("{'reason': 'same author', 'classification': 'correct',}", "repaired"),
    ],
)
def test_json_paths(text: str, method: str) -> None:
    result = _read(text)
    assert result.value == Classification(label=C, reason="same author")
    assert result.method == method
    assert result.notes == ()


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("correct", C),
        ("Right", C),
        (True, C),
        ("yes", C),
        ("ACCURATE", C),
        ("wrong", W),
        ("incorrect", W),
        (False, W),
        ("no", W),
        ("inaccurate", W),
        ("hallucinated", W),
        ("dont_know", D),
        ("don't know", D),
        ("don\u2019t know", D),
        ("Do not know", D),
        ("unknown", D),
        ("abstain", D),
        ("abstention", D),
        ("IDK", D),
        ("not answered", D),
        ("refused", D),
        ("**Wrong.**", W),
    ],
)
def test_label_synonyms(label: object, expected: AnswerClass) -> None:
    result = _read(json.dumps({"reason": "r", "classification": label}))
    assert result.value.label is expected
    if label not in (expected.value, "**Wrong.**"):  # a synonym, not just formatting
        assert any("read the label" in n for n in result.notes)
    else:
        assert result.notes == ()


@pytest.mark.parametrize("key", ["classification", "label", "verdict", "class", "category"])
def test_label_key_synonyms(key: str) -> None:
    assert _read(json.dumps({key: "wrong"})).value.label is W


@pytest.mark.parametrize(
    "text",
    [
        '{"classification": "partially correct"}',
        '{"classification": "maybe"}',
        '{"reason": "no label"}',
        "[1, 2]",
    ],
)
def test_unknown_or_missing_labels_are_schema_failures(text: str) -> None:
    failure = _failure(text)
    assert failure.kind == "schema"
    assert "'correct', 'wrong', 'dont_know'" in failure.message


def test_refusal_and_unparseable() -> None:
    assert _failure("Sorry, I can't compare these.").kind == "refusal"
    assert _failure("The answer mentions a playwright.").kind == "unparseable"
