"""find_abstention: whole-word, case- and apostrophe-tolerant abstention phrases."""

from __future__ import annotations

import time

import pytest

from veracity.prompts import DEFAULT_ABSTENTION_PHRASES, find_abstention


@pytest.mark.parametrize(
    ("answer", "phrase"),
    [
        ("I don't know.", "i don't know"),
        ("I don\u2019t know", "i don't know"),
        ("i dont know", "i don't know"),
        ("Honestly, I DO NOT KNOW the answer", "i do not know"),
        ("I cannot determine that from the context", "cannot determine"),
        ("There is no information about that.", "no information"),
        ("That is not mentioned in the context.", "not mentioned in the context"),
        ("I'm not sure.", "i'm not sure"),
        ("I\u2019m   not\nsure", "i'm not sure"),
        ("Sorry, I cannot find it in the documents.", "i cannot find"),
        ("I don't have enough information to say.", "don't have enough information"),
    ],
)
def test_abstentions_are_found(answer: str, phrase: str) -> None:
    assert find_abstention(answer) == phrase


@pytest.mark.parametrize(
    "answer",
    [
        "He was an unknown soldier.",
        "She works in information technology.",
        "The piano information desk is on the left.",
        "Paris is the capital of France.",
        "Knowledge workers cannot be determinedly replaced.",
        "",
    ],
)
def test_ordinary_answers_are_not_abstentions(answer: str) -> None:
    assert find_abstention(answer) is None


def test_earliest_then_longest_phrase_wins() -> None:
    answer = "I'm not sure; I cannot determine it and I don't know."
    assert find_abstention(answer) == "i'm not sure"
    phrases = ("not enough information", "enough information")
    assert find_abstention("There is not enough information.", phrases) == phrases[0]


def test_custom_phrase_lists() -> None:
    assert find_abstention("Keine Ahnung!", ["keine ahnung"]) == "keine ahnung"
    assert find_abstention("I don't know.", ["no idea"]) is None
    assert find_abstention("anything", []) is None
    assert find_abstention("anything", ["", "  "]) is None


def test_default_list_covers_the_spec_examples() -> None:
    for phrase in ("i don't know", "cannot determine", "no information"):
        assert phrase in DEFAULT_ABSTENTION_PHRASES


def test_a_50_mb_answer_is_scanned_once_not_once_per_phrase() -> None:
    """Issue 14: a 50 MB answer took 20 s here (one scan per phrase, 23 phrases) before the
    judge was even asked; one scan takes a couple of seconds."""
    answer = "Paris is in France. " * 2_621_440 + "Still, I'm not sure."
    started = time.perf_counter()
    assert find_abstention(answer) == "i'm not sure"
    assert time.perf_counter() - started < 10
