"""extract_json: strict, fenced, embedded and repaired JSON, and what it refuses."""

from __future__ import annotations

import json

import pytest

from veracity.judges.parsing.json_extract import JsonFound, extract_json, unwrap_schema_echo


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"claims": ["a", "b"]}', {"claims": ["a", "b"]}),
        ('  \n["a"]\n ', ["a"]),
        ('"just a string"', "just a string"),
        ("true", True),
        ("0", 0),
    ],
)
def test_strict_json_is_any_value_of_the_whole_text(text: str, value: object) -> None:
    assert extract_json(text) == JsonFound(value, "strict")


@pytest.mark.parametrize(
    "text",
    [
        'Here you go:\n```json\n{"claims": ["a"]}\n```\nDone.',
        'Here you go:\n```JSON\n{"claims": ["a"]}\n```',
        '```\n{"claims": ["a"]}\n```',
        '```{"claims": ["a"]}```',
        'Not this one:\n```text\nhello\n```\nThis one:\n```json\n{"claims": ["a"]}\n```',
    ],
)
def test_fenced_json_with_and_without_a_language_tag(text: str) -> None:
    assert extract_json(text) == JsonFound({"claims": ["a"]}, "fenced")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('Sure! {"claims": ["a", "b"]} Hope this helps.', {"claims": ["a", "b"]}),
        (
            'The verdicts are [{"claim": "a", "verdict": "yes"}].',
            [{"claim": "a", "verdict": "yes"}],
        ),
        # a citation before the payload does not win: the largest value does
        ('As shown in [1], the answer is {"claims": ["x"]}', {"claims": ["x"]}),
        # braces inside strings do not confuse the bracket scan
        ('Result: {"claims": ["a } b", "c ] d"]} end', {"claims": ["a } b", "c ] d"]}),
        # prose in braces that is not JSON is skipped, the real object is found
        ('I think {maybe} this: {"claims": []}', {"claims": []}),
    ],
)
def test_embedded_json_in_prose(text: str, value: object) -> None:
    assert extract_json(text) == JsonFound(value, "embedded")


@pytest.mark.parametrize(
    ("text", "value", "cut"),
    [
        ('{"claims": ["a", "b",]}', {"claims": ["a", "b"]}, False),
        ("{'claims': ['a', 'b']}", {"claims": ["a", "b"]}, False),
        ('{"claims": ["a", "b", "c', {"claims": ["a", "b", "c"]}, True),
        ('{"claims": ["a", // the first\n "b" /* the second */]}', {"claims": ["a", "b"]}, False),
        ('```json\n{"claims": ["a",]}\n``` and then {"other": 1,}', {"claims": ["a"]}, False),
        ('```json\n{"claims": ["a", "b"', {"claims": ["a", "b"]}, True),
        ("Sure! {claims: [a, b]}", {"claims": ["a", "b"]}, False),
    ],
)
def test_repaired_json(text: str, value: object, cut: bool) -> None:
    """Repaired JSON says whether the repair closed what a reply cut short left open: such a
    reply is asked for again, never trusted."""
    assert extract_json(text) == JsonFound(value, "repaired", cut)


def test_truncated_verdicts_keep_the_complete_items() -> None:
    text = '{"verdicts": [{"claim": "a", "verdict": "yes"}, {"claim": "b", "verd'
    found = extract_json(text)
    assert found is not None
    assert found.method == "repaired"
    assert isinstance(found.value, dict)
    assert found.value["verdicts"][0] == {"claim": "a", "verdict": "yes"}


def test_embedded_never_returns_a_fragment_of_a_broken_object() -> None:
    # the inner item is valid JSON on its own, but the outer object has a trailing comma
    text = 'Answer: {"verdicts": [{"claim": "a", "verdict": "yes"},]} ok'
    found = extract_json(text)
    assert found == JsonFound({"verdicts": [{"claim": "a", "verdict": "yes"}]}, "repaired")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "Yes",
        "I cannot help with that.",
        "hello {",
        "{ not json at all }",
        "see [the context] for details",
        "{}",  # strict would accept it, so check the repair path separately below
    ],
)
def test_no_usable_json(text: str) -> None:
    found = extract_json(text)
    if text == "{}":
        assert found == JsonFound({}, "strict")
    else:
        assert found is None


def test_non_finite_constants_are_not_strict_json() -> None:
    assert extract_json("NaN") is None


# What a small model sent back when a prompt showed it the JSON schema: the schema itself,
# with its values filled in.
SCHEMA_ECHO = {
    "additionalProperties": False,
    "properties": {"claims": {"items": ["Paris is in France.", "Paris is big."]}},
    "required": ["claims"],
    "title": "ExtractedClaims",
    "type": "object",
}


def test_a_filled_in_schema_echo_is_read_as_the_object_it_stands_for() -> None:
    found = extract_json(json.dumps(SCHEMA_ECHO))
    assert found == JsonFound({"claims": ["Paris is in France.", "Paris is big."]}, "strict")


@pytest.mark.parametrize(
    ("echo", "meant"),
    [
        ({"type": "object", "properties": {"score": {"type": "integer", "value": 4}}},
         {"score": 4}),
        ({"properties": {"label": {"enum": ["correct"]}, "reason": "fits"}},
         {"label": "correct", "reason": "fits"}),
        ({"properties": {"verdicts": {"type": "array", "items": [
            {"properties": {"claim": 1, "verdict": {"const": "supported"}}}]}}},
         {"verdicts": [{"claim": 1, "verdict": "supported"}]}),
    ],
)  # fmt: skip
def test_schema_echoes_of_every_shape_are_unwrapped(echo: object, meant: object) -> None:
    assert unwrap_schema_echo(echo) == meant


@pytest.mark.parametrize(
    "value",
    [
        {"claims": ["a"]},
        {"properties": ["a"], "claims": []},  # "properties" as data, beside other keys
        {"type": "object"},
        ["properties"],
    ],
)
def test_replies_that_are_not_schema_echoes_are_left_alone(value: object) -> None:
    assert unwrap_schema_echo(value) is value
