"""read_claims_reply: JSON shapes, refusals and failures."""

from __future__ import annotations

import pytest

from veracity.judges.parsing.reader import ParsedValue, ParseFailure
from veracity.judges.parsing.replies import read_claims_reply


def _claims(text: str) -> ParsedValue[tuple[str, ...]]:
    result = read_claims_reply(text)
    assert isinstance(result, ParsedValue), result
    return result


def _failure(text: str) -> ParseFailure:
    result = read_claims_reply(text)
    assert isinstance(result, ParseFailure), result
    return result


@pytest.mark.parametrize(
    ("text", "method"),
    [
        ('{"claims": ["Paris is in France.", "It is big."]}', "strict"),
        ('["Paris is in France.", "It is big."]', "strict"),
        ('```json\n{"claims": ["Paris is in France.", "It is big."]}\n```', "fenced"),
        ('```\n["Paris is in France.", "It is big."]\n```', "fenced"),
        ('Sure: {"claims": ["Paris is in France.", "It is big."]} done', "embedded"),
        ("{'claims': ['Paris is in France.', 'It is big.',]}", "repaired"),
    ],
)
def test_json_paths(text: str, method: str) -> None:
    result = _claims(text)
    assert result.value == ("Paris is in France.", "It is big.")
    assert result.method == method


@pytest.mark.parametrize("key", ["claims", "statements", "Claims"])
def test_container_key_synonyms(key: str) -> None:
    assert _claims(f'{{"{key}": ["a", "b"]}}').value == ("a", "b")


def test_strips_skips_empties_and_dedupes_with_notes() -> None:
    result = _claims('{"claims": ["  a  ", "", "   ", "b", "a", 7]}')
    assert result.value == ("a", "b")
    assert any("duplicate" in n and "'a'" in n for n in result.notes)
    assert [n for n in result.notes if "skipped" in n] == [
        f"skipped item {n}: not a claim string" for n in (2, 3, 6)
    ]


@pytest.mark.parametrize("text", ['{"claims": []}', "[]", '```json\n{"claims": []}\n```'])
def test_empty_claims_is_a_valid_result(text: str) -> None:
    result = _claims(text)
    assert result.value == ()
    assert result.notes == ()


@pytest.mark.parametrize(
    "text",
    [
        "I cannot extract claims from this.",
        "I'm sorry, that is not something I can do.",
        "As an AI, I do not break answers into claims.",
    ],
)
def test_refusal(text: str) -> None:
    failure = _failure(text)
    assert failure.kind == "refusal"
    assert "refused" in failure.message


@pytest.mark.parametrize("text", ["", "hello world", "The answer is fine."])
def test_garbage_is_unparseable(text: str) -> None:
    failure = _failure(text)
    assert failure.kind == "unparseable"
    assert "'claims'" in failure.message


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('{"foo": ["a"]}', "got a JSON object with keys 'foo'"),
        ('"Paris is in France."', "got a JSON string"),
        ("42", "got a JSON number"),
        ("{}", "got an empty JSON object"),
        ('{"claims": "Paris is in France."}', "'claims' is a JSON string, not an array"),
        ('{"claims": [1, 2, {"x": 3}]}', "none of the 3 items"),
    ],
)
def test_wrong_shape_json_is_a_schema_failure(text: str, fragment: str) -> None:
    failure = _failure(text)
    assert failure.kind == "schema"
    assert fragment in failure.message
    assert failure.message.startswith("expected a JSON object with 'claims' (an array of strings)")
