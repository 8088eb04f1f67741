"""read_questions_reply: questions, the noncommittal flag, legacy text."""

from __future__ import annotations

import json

import pytest

from veracity.judges.parsing.reader import ParsedValue, ParseFailure
from veracity.judges.parsing.replies import read_questions_reply
from veracity.types import GeneratedQuestions

FULL = {
    "reason": "it commits",
    "noncommittal": False,
    "questions": [
        "Who wrote Hamlet?",
        "Who is the author of Hamlet?",
        "Which writer wrote Hamlet?",
    ],
}
EXPECTED = GeneratedQuestions(
    questions=tuple(FULL["questions"]),  # type: ignore[arg-type]
    noncommittal=False,
    reason="it commits",
)


def _read(text: str) -> ParsedValue[GeneratedQuestions]:
    result = read_questions_reply(text)
    assert isinstance(result, ParsedValue), result
    return result


def _failure(text: str) -> ParseFailure:
    result = read_questions_reply(text)
    assert isinstance(result, ParseFailure), result
    return result


@pytest.mark.parametrize(
    ("text", "method"),
    [
        (json.dumps(FULL), "strict"),
        (f"```json\n{json.dumps(FULL)}\n```", "fenced"),
        (f"Sure! {json.dumps(FULL)}", "embedded"),
        (json.dumps(FULL).replace('"', "'").replace("false", "False"), "repaired"),
    ],
)
def test_json_paths(text: str, method: str) -> None:
    result = _read(text)
    assert result.value == EXPECTED
    assert result.method == method


def test_question_items_are_cleaned() -> None:
    text = json.dumps({"questions": [" a? ", "b?", "a?", "", 3], "noncommittal": False})
    result = _read(text)
    assert result.value.questions == ("a?", "b?")
    assert any("duplicate" in n for n in result.notes)
    assert sum("not a question string" in n for n in result.notes) == 2


@pytest.mark.parametrize(
    ("field", "value", "noncommittal"),
    [
        ("noncommittal", True, True),
        ("noncommittal", 1, True),
        ("noncommittal", "yes", True),
        ("noncommittal", "no", False),
        ("non_committal", "1", True),
        ("non-committal", 0, False),
    ],
)
def test_noncommittal_synonyms(field: str, value: object, noncommittal: bool) -> None:
    result = _read(json.dumps({"questions": ["a?"], field: value}))
    assert result.value.noncommittal is noncommittal


def test_a_missing_flag_is_false() -> None:
    assert _read('{"questions": ["a?"]}').value.noncommittal is False


def test_a_bare_list_of_questions() -> None:
    result = _read('["a?", "b?"]')
    assert result.value.questions == ("a?", "b?")
    assert result.value.noncommittal is False


def test_noncommittal_without_questions_is_valid() -> None:
    value = _read('{"reason": "evasive", "noncommittal": true, "questions": []}').value
    assert value == GeneratedQuestions(questions=(), noncommittal=True, reason="evasive")


@pytest.mark.parametrize(
    "text",
    [
        '{"questions": [], "noncommittal": false}',
        '{"answer": "Paris"}',
        '{"questions": ["a?"], "noncommittal": "maybe"}',
        "42",
    ],
)
def test_schema_failures(text: str) -> None:
    failure = _failure(text)
    assert failure.kind == "schema"
    assert "'questions'" in failure.message


def test_refusal_and_unparseable() -> None:
    assert _failure("I apologize, but I won't do that.").kind == "refusal"
    assert _failure("The answer talks about plays.").kind == "unparseable"
