"""The one reply reader: a pydantic model read leniently, coercions noted, failures that
say what the prompt's output model asks for."""

from __future__ import annotations

import json
from typing import Annotated

import pytest
from pydantic import BeforeValidator, Field, ValidationInfo

from veracity.judges.parsing import ParsedValue, ParseFailure
from veracity.judges.parsing.reader import (
    Reading,
    Reason,
    ReplyModel,
    bare,
    describe_output,
    note,
    synonyms,
)
from veracity.prompts import TESTSET_GENERATION, PromptTemplate
from veracity.prompts.catalog import ALL_TEMPLATES


def _doubled(raw: object, info: ValidationInfo) -> int:
    if not isinstance(raw, int) or isinstance(raw, bool):
        raise ValueError(f"the count {raw!r} is not a whole number")
    limit = info.context["limit"] if isinstance(info.context, dict) else 0
    if raw > limit:
        raise ValueError(f"the count {raw} is over {limit}")
    note(info, f"doubled {raw}")
    return raw * 2


class _Count(ReplyModel):
    reason: Reason = ""
    count: Annotated[int, BeforeValidator(_doubled), Field(validation_alias=synonyms("count", "n"))]


def _reading(limit: int = 10) -> Reading[_Count, int]:
    return Reading(
        _Count,
        lambda read: read.count,
        "expected a count",
        shape=bare("count", lambda value: isinstance(value, int)),
        context={"limit": limit},
    )


def _read(text: str, limit: int = 10) -> ParsedValue[int]:
    result = _reading(limit)(text)
    assert isinstance(result, ParsedValue), result
    return result


def _failure(text: str) -> ParseFailure:
    result = _reading()(text)
    assert isinstance(result, ParseFailure), result
    return result


def test_keys_are_read_loosely_and_the_first_spelling_wins() -> None:
    assert _read('{"Count": 2}').value == 4
    assert _read('{"N": 3, "n": 4}').value == 6
    assert _read('{"count": 1, "n": 4}').value == 2  # the first synonym, in its order


def test_validators_note_what_they_did_and_see_the_context() -> None:
    result = _read('{"reasoning": ["two", "parts"], "count": 3, "extra": true}')
    assert result.notes == ("doubled 3",)
    assert result.method == "strict"
    assert _failure('{"count": 11}').message == "expected a count; the count 11 is over 10"
    assert _read('{"count": 11}', limit=20).value == 22


def test_a_bare_value_is_shaped_and_noted() -> None:
    result = _read("5")
    assert result.value == 10
    assert result.notes == ("the reply is a bare value", "doubled 5")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"other": 1}', "expected a count; got a JSON object with keys 'other'"),
        ('"five"', "expected a count; got a JSON string"),
        ('{"count": "five"}', "expected a count; the count 'five' is not a whole number"),
    ],
)
def test_failures_say_what_was_expected_and_what_came(text: str, message: str) -> None:
    failure = _failure(text)
    assert failure.kind == "schema"
    assert failure.message == message


def test_no_json_is_unparseable_or_a_refusal() -> None:
    assert _failure("no idea").kind == "unparseable"
    assert _failure("I'm sorry, I cannot help with that.").kind == "refusal"


def test_hostile_replies_fail_cleanly() -> None:
    deep = "[" * 5000 + "]" * 5000
    assert isinstance(_reading()(deep), ParseFailure)
    huge = json.dumps({"reason": "x" * 1_000_000, "count": 1})
    assert _read(huge).value == 2
    assert _read('{"count": 1, "reason": "a\\u0000b\\u001b[31m"}').value == 2


@pytest.mark.parametrize("template", [*ALL_TEMPLATES, TESTSET_GENERATION], ids=lambda t: t.id)
def test_every_output_model_is_described_by_its_fields(template: PromptTemplate) -> None:
    model = template.output_model
    described = describe_output(model)
    assert described.startswith("expected a JSON object with ")
    for name in model.model_json_schema()["properties"]:
        assert f"'{name}' (" in described
    assert "a value" not in described  # every field's type is put in words
