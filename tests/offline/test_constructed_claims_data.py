"""The constructed-claim benchmark's data (benchmarks/data/constructed_claims.jsonl) is
well formed: what benchmarks/constructed_claims.py reads, no judge needed."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "constructed_claims.jsonl"
CATEGORIES = {
    "contradicted_name",
    "contradicted_number",
    "contradicted_negation",
    "contradicted_role",
    "paraphrase",
    "two_passage",
    "unrelated",
    "short_reply_right",
    "short_reply_wrong",
}
REPLIES = {"short_reply_right", "short_reply_wrong"}  # a reply to the item's question


def items() -> list[dict[str, Any]]:
    return [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]


def test_every_item_has_the_fields_and_a_known_category() -> None:
    for item in items():
        fields = {"id", "category", "claim", "contexts", "note"}
        if item.get("category") in REPLIES:
            fields.add("question")
            assert item["question"].endswith("?"), item["id"]
        assert set(item) == fields, item
        assert item["category"] in CATEGORIES, item["id"]
        assert isinstance(item["note"], str) and item["note"].strip(), item["id"]


def test_ids_are_unique() -> None:
    counted = Counter(item["id"] for item in items())
    assert [i for i, n in counted.items() if n > 1] == []


def test_each_category_has_at_least_twelve_items() -> None:
    counted = Counter(item["category"] for item in items())
    assert set(counted) == CATEGORIES
    assert {c: n for c, n in counted.items() if n < 12} == {}


def test_claims_are_one_sentence_or_reply_and_contexts_two_to_four_non_empty_texts() -> None:
    for item in items():
        claim = item["claim"]
        short = item["category"] in REPLIES and len(claim.split()) <= 6
        assert isinstance(claim, str) and (claim.endswith(".") or short), item["id"]
        # One sentence: no full stop followed by a new capitalised sentence inside it.
        assert re.search(r"[a-z]\. [A-Z]", claim) is None, item["id"]
        contexts = item["contexts"]
        assert isinstance(contexts, list) and 2 <= len(contexts) <= 4, item["id"]
        assert all(isinstance(c, str) and c.strip() for c in contexts), item["id"]
        assert claim not in contexts, item["id"]


def test_the_issues_own_examples_are_in() -> None:
    claims = {item["claim"]: item["category"] for item in items()}
    assert claims["Insulin is produced by the liver."] == "contradicted_name"
    assert claims["You can return items within 60 days of delivery."] == "contradicted_number"
    assert claims["Refunds arrive within 5 business days."] == "paraphrase"
