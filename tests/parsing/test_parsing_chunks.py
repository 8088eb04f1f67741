"""read_chunks_reply: JSON shapes, index matching, labels and numbers, failures."""

from __future__ import annotations

import json

import pytest

from veracity.judges.parsing.chunks import ParsedChunks, read_chunks_reply
from veracity.judges.parsing.reader import ParseFailure
from veracity.types import ChunkJudgement

FULL = {
    "chunks": [
        {"index": 1, "reason": "names the author", "relevance": 95, "relevant": True},
        {"index": 2, "reason": "another play", "relevance": 5, "relevant": False},
    ]
}
FULL_ITEMS = {
    0: ChunkJudgement(index=0, relevant=True, relevance=95, reason="names the author"),
    1: ChunkJudgement(index=1, relevant=False, relevance=5, reason="another play"),
}


def _parsed(text: str, n: int = 2) -> ParsedChunks:
    result = read_chunks_reply(text, n)
    assert isinstance(result, ParsedChunks), result
    return result


def _failure(text: str, n: int = 2) -> ParseFailure:
    result = read_chunks_reply(text, n)
    assert isinstance(result, ParseFailure), result
    return result


def _flags(result: ParsedChunks) -> dict[int, bool]:
    return {i: j.relevant for i, j in result.items.items()}


@pytest.mark.parametrize(
    ("text", "method"),
    [
        (json.dumps(FULL), "strict"),
        (json.dumps(FULL["chunks"]), "strict"),
        (f"```json\n{json.dumps(FULL)}\n```", "fenced"),
        (f"Here you go: {json.dumps(FULL)} Done.", "embedded"),
        (json.dumps(FULL).replace('"', "'"), "repaired"),
        (json.dumps(FULL)[:-2] + ",]}", "repaired"),
    ],
)
def test_json_paths(text: str, method: str) -> None:
    result = _parsed(text)
    assert dict(result.items) == FULL_ITEMS
    assert result.missing == ()
    assert result.notes == ()
    assert result.method == method


@pytest.mark.parametrize("index_key", ["index", "chunk"])
def test_index_key_synonyms_match_out_of_order(index_key: str) -> None:
    items = [
        {index_key: 2, "relevance": 10, "relevant": False},
        {index_key: 1, "relevance": 90, "relevant": True},
    ]
    result = _parsed(json.dumps({"chunks": items}))
    assert _flags(result) == {0: True, 1: False}
    assert result.items[1].relevance == 10


def test_an_index_that_is_not_an_integer_goes_by_position() -> None:
    result = _parsed(json.dumps([{"index": "chunk 2", "relevant": "yes", "relevance": 80}]))
    assert list(result.items) == [0]


def test_out_of_range_index_is_dropped_with_a_note() -> None:
    items = [
        {"index": 1, "relevant": True, "relevance": 90},
        {"index": 9, "relevant": True, "relevance": 90},
    ]
    result = _parsed(json.dumps(items))
    assert list(result.items) == [0]
    assert result.missing == (1,)
    assert any("chunk 9" in n and "only 2" in n for n in result.notes)


def test_duplicate_index_keeps_the_first() -> None:
    items = [
        {"index": 1, "relevant": True, "relevance": 90},
        {"index": 1, "relevant": False, "relevance": 0},
        {"index": 2, "relevant": False, "relevance": 0},
    ]
    result = _parsed(json.dumps(items))
    assert _flags(result) == {0: True, 1: False}
    assert any("second verdict for chunk 1" in n for n in result.notes)


def test_zero_based_indices_are_shifted_with_a_note() -> None:
    items = [
        {"index": 0, "relevant": True, "relevance": 80},
        {"index": 1, "relevant": False, "relevance": 0},
    ]
    result = _parsed(json.dumps(items))
    assert _flags(result) == {0: True, 1: False}
    assert any("0-based" in n for n in result.notes)


def test_items_without_index_go_by_position() -> None:
    items = [{"relevant": False, "relevance": 0}, {"relevant": True, "relevance": 70}]
    assert _flags(_parsed(json.dumps({"chunks": items}))) == {0: False, 1: True}


def test_unindexed_item_whose_position_is_taken_is_dropped() -> None:
    items = [{"index": 2, "relevant": True, "relevance": 90}, {"relevant": False, "relevance": 0}]
    result = _parsed(json.dumps(items), 3)
    assert list(result.items) == [1]
    assert result.missing == (0, 2)
    assert any("dropped verdict 2 without an index" in n for n in result.notes)


@pytest.mark.parametrize(
    ("label", "flag"),
    [
        ("yes", True),
        ("No", False),
        ("true", True),
        (False, False),
        (1, True),
        ("0", False),
        ("relevant", True),
        ("Not Relevant", False),
        ("irrelevant", False),
        ("not_relevant", False),
    ],
)
def test_relevant_label_synonyms(label: object, flag: bool) -> None:
    result = _parsed(json.dumps([{"index": 1, "relevant": label, "relevance": 60}]), 1)
    assert result.items[0].relevant is flag


@pytest.mark.parametrize(
    ("relevance", "expected"),
    [(85, 85), ("85", 85), ("85/100", 85), ("8/10", 80)],
)
def test_relevance_number_forms(relevance: object, expected: int) -> None:
    result = _parsed(json.dumps([{"index": 1, "relevant": True, "relevance": relevance}]), 1)
    assert result.items[0].relevance == expected


def test_an_item_without_its_relevance_is_missing() -> None:
    items = [{"index": 1, "reason": "hmm"}, {"index": 2, "relevant": "yes", "relevance": 70}]
    result = _parsed(json.dumps(items))
    assert result.missing == (0,)
    assert any("it has no 'relevance'" in n for n in result.notes)


def test_no_chunks_accepts_an_empty_array() -> None:
    result = _parsed('{"chunks": []}', 0)
    assert dict(result.items) == {}
    assert result.missing == ()


# ---------------------------------------------------------------- failures


def test_a_partial_reply_lists_the_missing_chunks() -> None:
    result = _parsed(json.dumps([{"index": 2, "relevant": True, "relevance": 90}]), 3)
    assert result.missing == (0, 2)
    assert "no verdict for chunk(s) 1, 3" in result.notes


@pytest.mark.parametrize(
    "text",
    ['{"chunks": [{"index": 7, "relevant": true}]}', '{"answer": "Paris"}', '"Paris"', "42"],
)
def test_wrong_shapes_are_schema_failures(text: str) -> None:
    failure = _failure(text)
    assert failure.kind == "schema"
    assert "'chunks' (an array" in failure.message
    assert "2 chunks, numbered 1 to 2" in failure.message


def test_out_of_range_only_says_why() -> None:
    assert "chunk 7" in _failure('[{"index": 7, "relevant": true, "relevance": 90}]').message


def test_refusal_and_unparseable() -> None:
    assert _failure("I'm sorry, I cannot help with that.").kind == "refusal"
    failure = _failure("The chunks discuss Shakespeare at length.")
    assert failure.kind == "unparseable"
    assert "'chunks' (an array" in failure.message
