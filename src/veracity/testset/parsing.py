"""Read generated test items out of a reply, without trusting its shape."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated

from pydantic import BeforeValidator, Field, InstanceOf, ValidationInfo

from veracity.judges.parsing import ParseFailure, describe_json
from veracity.judges.parsing.reader import (
    Reading,
    ReplyModel,
    describe_output,
    note,
    synonyms,
    written,
)
from veracity.prompts.testset import GeneratedTestItems

_NUMBER = re.compile(r"\d+")


@dataclass(frozen=True)
class DraftItem:
    """A generated item as the model wrote it; ``chunks`` are 0-based, in cited order."""

    question: str
    reference: str
    chunks: tuple[int, ...]


@dataclass(frozen=True)
class ParsedItems:
    """The well-formed items of a reply, and why each other item was rejected."""

    items: tuple[DraftItem, ...]
    malformed: tuple[str, ...]
    method: str
    notes: tuple[str, ...] = ()


class _Item(ReplyModel):
    """One generated item as written."""

    question: object = written("question query user_input q")
    reference: object = written("reference reference_answer answer ground_truth expected_answer a")
    chunks: object = written(
        "chunks chunk_numbers chunk_ids chunk_indices chunk sources contexts context_ids"
    )


def _shape(value: object, notes: list[str]) -> object:
    """The reply as an object with its ``items``: a bare array, a single item, or an
    object whose only array they are."""
    if isinstance(value, list):
        return {"items": value}
    if not isinstance(value, dict):
        return value
    items = _Items.given("items", value)
    if items is not None and isinstance(items[1], list):
        return value
    if _Item.model_validate(value).question is not None:
        notes.append("the reply is a single item, not a list")
        return {"items": [value]}
    lists = [v for v in value.values() if isinstance(v, list)]
    if len(lists) == 1:
        notes.append("took the only array in the reply as the items")
        return {"items": lists[0]}
    return value


def _numbers(value: object) -> list[int] | None:
    """The chunk numbers cited: ints, digit strings ("2", "chunk 2") or a list of them."""
    values = value if isinstance(value, list) else [value]
    numbers: list[int] = []
    for item in values:
        if isinstance(item, bool):
            return None
        if isinstance(item, int):
            numbers.append(item)
        elif isinstance(item, float) and item.is_integer():
            numbers.append(int(item))
        elif isinstance(item, str) and _NUMBER.search(item):
            numbers.extend(int(digits) for digits in _NUMBER.findall(item))
        else:
            return None
    return list(dict.fromkeys(numbers))


def _item(raw: object, n_chunks: int, min_chunks: int, notes: list[str]) -> DraftItem | str:
    if not isinstance(raw, dict):
        return "not an object"
    read = _Item.model_validate(raw)
    question, reference = read.question, read.reference
    if not isinstance(question, str) or not question.strip():
        return "no question"
    if not isinstance(reference, str) or not reference.strip():
        return f"no reference answer for {question.strip()!r}"
    numbers = _numbers(read.chunks)
    if not numbers:
        return f"no chunk numbers for {question.strip()!r}"
    if 0 in numbers and max(numbers) < n_chunks:
        notes.append("read chunk numbers given from 0 as 0-based")
        numbers = [n + 1 for n in numbers]
    outside = [n for n in numbers if not 1 <= n <= n_chunks]
    if outside:
        return f"cites chunk {outside[0]} but there are {n_chunks} chunk(s)"
    if len(numbers) < min_chunks:
        return f"rests on {len(numbers)} chunk(s), at least {min_chunks} needed"
    return DraftItem(question.strip(), reference.strip(), tuple(n - 1 for n in numbers))


def _items(value: object, info: ValidationInfo) -> tuple[tuple[DraftItem, ...], tuple[str, ...]]:
    """The well-formed items, and why each other one is malformed."""
    if not isinstance(value, list):
        raise ValueError(f"'items' is {describe_json(value)}, not an array")
    if not value:
        raise ValueError("the array of items is empty")
    context = info.context if isinstance(info.context, dict) else {}
    n_chunks, min_chunks = int(context["n_chunks"]), int(context["min_chunks"])
    items: list[DraftItem] = []
    malformed: list[str] = []
    notes: list[str] = []
    for number, raw in enumerate(value, 1):
        result = _item(raw, n_chunks, min_chunks, notes)
        if isinstance(result, str):
            malformed.append(f"item {number}: {result}")
        else:
            items.append(result)
    for said in dict.fromkeys(notes):
        note(info, said)
    return tuple(items), tuple(malformed)


class _Items(ReplyModel):
    items: Annotated[
        tuple[tuple[InstanceOf[DraftItem], ...], tuple[str, ...]],
        BeforeValidator(_items),
        Field(
            validation_alias=synonyms("items questions test_questions qa_pairs pairs data results")
        ),
    ]


def parse_items_reply(text: str, n_chunks: int, min_chunks: int = 1) -> ParsedItems | ParseFailure:
    """The items of a test-set generation reply.

    The JSON is found as for any judge reply (strict, fenced, embedded, repaired). Items
    sit under ``items`` (or ``questions``, ``qa_pairs``, …) or form a bare array; in each,
    ``question``, ``reference`` (or ``answer``, ``ground_truth``) and ``chunks`` (numbers
    1..``n_chunks``, as ints or strings such as ``"chunk 2"``). An item that lacks one of
    them, cites a chunk that does not exist or fewer than ``min_chunks`` chunks is
    *malformed*: counted, not fatal. A reply with no item list at all, or an empty one, is
    a failure (which earns a re-ask).
    """
    reading = Reading(
        _Items,
        lambda read: read.items,
        describe_output(GeneratedTestItems),
        shape=_shape,
        context={"n_chunks": n_chunks, "min_chunks": min_chunks},
    )
    read = reading(text)
    if isinstance(read, ParseFailure):
        return read
    items, malformed = read.value
    return ParsedItems(items, malformed, read.method, read.notes)
