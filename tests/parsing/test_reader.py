"""The one reply reader: the prompt's own output model, read leniently, coercions noted,
failures that say what the output model asks for."""

from __future__ import annotations

import json
from typing import Annotated

import pytest
from pydantic import BeforeValidator, ValidationInfo

from veracity.judges.parsing.reader import ParsedValue, ParseFailure, describe_output, read_reply
from veracity.prompts import TESTSET_GENERATION, PromptTemplate
from veracity.prompts.catalog import ALL_TEMPLATES
from veracity.prompts.reply import REASONS, Reply, Text, context, note, synonyms


def _doubled(raw: object, info: ValidationInfo) -> int:
    if not isinstance(raw, int) or isinstance(raw, bool):
        raise ValueError(f"the count {raw!r} is not a whole number")
    limit = context(info, "limit", 0)
    if raw > limit:
        raise ValueError(f"the count {raw} is over {limit}")
    note(info, f"doubled {raw}")
    return raw * 2


class _Count(Reply):
    reason: Text = synonyms(REASONS, "")
    count: Annotated[int, BeforeValidator(_doubled)] = synonyms("count n")


def _reading(text: str, limit: int = 10) -> ParsedValue[_Count] | ParseFailure:
    return read_reply(text, _Count, {"limit": limit}, expected="expected a count")


def _read(text: str, limit: int = 10) -> ParsedValue[_Count]:
    result = _reading(text, limit)
    assert isinstance(result, ParsedValue), result
    return result


def _failure(text: str) -> ParseFailure:
    result = _reading(text)
    assert isinstance(result, ParseFailure), result
    return result


def test_keys_are_read_loosely_and_the_first_spelling_wins() -> None:
    assert _read('{"Count": 2}').value.count == 4
    assert _read('{"N": 3, "n": 4}').value.count == 6
    assert _read('{"count": 1, "n": 4}').value.count == 2  # the first synonym, in its order


def test_validators_note_what_they_did_and_see_the_context() -> None:
    result = _read('{"reasoning": ["two", "parts"], "count": 3, "extra": true}')
    assert result.value.reason == "two | parts"
    assert result.notes == ("doubled 3",)
    assert result.method == "strict"
    assert _failure('{"count": 11}').message == "expected a count; the count 11 is over 10"
    assert _read('{"count": 11}', limit=20).value.count == 22


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"other": 1}', "expected a count; got a JSON object with keys 'other', without 'count'"),
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
    assert isinstance(_reading(deep), ParseFailure)
    huge = json.dumps({"reason": "x" * 1_000_000, "count": 1})
    assert _read(huge).value.count == 2
    assert _read('{"count": 1, "reason": "a\\u0000b\\u001b[31m"}').value.count == 2


TEMPLATES = [*ALL_TEMPLATES, TESTSET_GENERATION]


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda t: t.id)
def test_every_output_model_is_described_by_its_fields(template: PromptTemplate) -> None:
    model = template.output_model
    described = describe_output(model)
    assert described.startswith("expected a JSON object with ")
    for name in model.model_json_schema()["properties"]:
        assert f"'{name}' (" in described
    assert "a value" not in described  # every field's type is put in words


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda t: t.id)
def test_every_output_model_reads_its_own_examples_strictly(template: PromptTemplate) -> None:
    """The reply a prompt shows the judge is read back as it was, with nothing to note."""
    for example in template.examples:
        written = example.reply.model_dump_json()
        read = read_reply(written, template.output_model)
        assert isinstance(read, ParsedValue), read
        assert (read.value, read.method, read.notes) == (example.reply, "strict", ())


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda t: t.id)
def test_the_schema_asks_for_every_field_and_nothing_else(template: PromptTemplate) -> None:
    """The reader forgives missing fields and extra keys; the schema sent does not."""
    schema = template.output.json_schema
    for part in [schema, *schema.get("$defs", {}).values()]:
        assert part["additionalProperties"] is False
        assert part["required"] == list(part["properties"])
        assert all("default" not in field for field in part["properties"].values())
