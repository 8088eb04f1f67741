"""find_abstention and abstains: whole-word, case- and apostrophe-tolerant abstention
phrases, and answers that say nothing to check."""

from __future__ import annotations

import re

import pytest

from veracity.prompts import (
    DEFAULT_ABSTENTION_PHRASES,
    abstains,
    abstention,
    find_abstention,
    is_courtesy,
)


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
        ("I can not determine that.", "cannot determine"),
        ("I cannotdetermine that.", None),
    ],
)
def test_abstentions_are_found(answer: str, phrase: str | None) -> None:
    assert find_abstention(answer) == phrase


@pytest.mark.parametrize(
    "answer",
    [
        "He was an unknown soldier.",
        "She works in information technology.",
        "The piano information desk is on the left.",
        "Paris is the capital of France.",
        "Knowledge workers cannot be determinedly replaced.",
        "The toucan nothing determines is its colour.",
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


class _Recorded:
    """A compiled pattern that notes each search of the answer and where each match looked."""

    def __init__(self, pattern: re.Pattern[str], calls: list[tuple[str, int]]) -> None:
        self._pattern = pattern
        self._calls = calls

    def search(self, text: str) -> re.Match[str] | None:
        self._calls.append(("search", 0))
        return self._pattern.search(text)

    def match(self, text: str, pos: int) -> re.Match[str] | None:
        self._calls.append(("match", pos))
        return self._pattern.match(text, pos)


def test_a_50_mb_answer_is_scanned_once_not_once_per_phrase(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 14: a 50 MB answer took 20 s here (one scan per phrase, 23 phrases) before the
    judge was even asked. Now one search walks the answer for any phrase; each phrase's own
    pattern is only tried where that search stopped."""
    compiled = abstention._compiled
    calls: list[tuple[str, int]] = []

    def recorded(phrases: tuple[str, ...]) -> tuple[_Recorded, tuple[tuple[str, _Recorded], ...]]:
        any_phrase, each = compiled(phrases)
        return _Recorded(any_phrase, calls), tuple((p, _Recorded(e, calls)) for p, e in each)

    monkeypatch.setattr(abstention, "_compiled", recorded)
    answer = "Paris is in France. " * 2_621_440 + "Still, I'm not sure."
    assert find_abstention(answer) == "i'm not sure"
    searches = [call for call in calls if call[0] == "search"]
    matched_at = {pos for kind, pos in calls if kind == "match"}
    assert len(searches) == 1
    assert len(calls) == 1 + len(DEFAULT_ABSTENTION_PHRASES)  # each phrase tried once, there
    assert matched_at == {answer.index("I'm not sure")}


@pytest.mark.parametrize(
    "answer",
    [
        "I'm sorry, I don't have information about the Q3 budget.",
        "The documents don't answer this.",
        "Unfortunately, the context does not specify the date.",
        "It is not mentioned in the provided documents.",
        "None of the provided passages mention the price.",
        "I don\u2019t have any details on that, sorry.",
        "I don't have information about the tower, its height or its age.",
        "I don't know, I'm afraid.",
        "I don't know, I can't find it in the documents.",
        "I apologize, but I cannot answer that question based on the given context.",
        "Sorry, but I don't know.",
        "I cannot find that in the documents. Is there anything else I can help with?",
        "Hi there! I'm unable to find that. Hope this helps!",
        "You're welcome!",
        "Thank you so much for asking.",
        # Conversational RAG's refusals (MTRAG-UN's references for unanswerable turns).
        "I am sorry that I do not have that information, either.",
        "I do not have specific information about the cost of IBM Cloud IAM",
        "I don't have a specific recommendation for a brand of hard candy.",
        "Sorry, I do not have the specific information regarding holiday hours.",
        "I cannot explain specifically how to get there.",
        "Who wrote Hamlet? I'm not sure.",
        # Refusals of MTRAG-UN's unanswerable turns.
        "I apologize, but I cannot confirm or deny that.",
        "Sorry, but I can not advise you about that.",
        "I do not have real-time data on the current average cost of serverless in IBM.",
        "I'm sorry, but I can't do that.",
        "Sorry, there is no specific information about downloading these games.",
        # A whole answer that says there is none.
        "Unknown.",
        "N/A",
        "Not available",
        "No idea!",
    ],
)
def test_answers_that_say_nothing_to_check(answer: str) -> None:
    assert abstains(answer) is not None


@pytest.mark.parametrize(
    "answer",
    [
        "I'm not sure, but I think it was 1889.",
        # A clause of its own after the abstention (dialogue data writes them so).
        "I dont know , he is the only one I know of as well as he was before.",
        "i am not sure, i just assume it is more interesting.",
        "No, I'm not sure why. I'm not sure, they had a funny story about the game.",
        "I don't know who will be the next CEO; the board has not announced a successor.",
        "I don't know the date. The tower is in Paris.",
        "Insulin is produced by the liver.",
        "The warranty does not cover accidental damage.",
        "There is no data loss in RAID 1.",
        "Hello! The tower is in Paris.",
        "Thanks to its design, the tower survived.",
        "I do not have the exact figure, but it is about 330 metres.",
        "I don't have data loss with RAID 1.",
        "Who wrote Hamlet? Shakespeare did.",
        "Do you mean the play?",
        "",
        "I can't recommend it enough, the pizza is great.",
        "I cannot confirm the date, it was 1889.",
        # Only as a whole answer: inside a sentence it claims something.
        "The cause is unknown.",
        "Unknown, but likely Paris.",
        "Na",  # sodium's symbol is an answer
        "None.",  # an answer to "how many"
    ],
)
def test_answers_with_something_to_check(answer: str) -> None:
    assert abstains(answer) is None


def test_abstains_names_the_words_that_matched_or_the_courtesy() -> None:
    assert abstains("Sorry, I dont  have information on that.") == "i dont have information"
    assert abstains("Thanks! Bye.") == "thanks"


def test_phrase_groups_offer_alternatives_and_optional_words() -> None:
    phrases = ["{the|these} {provided |}{docs|notes} {don't|do not} say"]
    assert find_abstention("The docs do not say.", phrases) == phrases[0]
    assert find_abstention("These provided notes don't say.", phrases) == phrases[0]
    assert find_abstention("The provided say.", phrases) is None
    assert find_abstention("Those docs don't say.", phrases) is None


def test_courtesy_is_a_whole_sentence_not_a_word_inside_one() -> None:
    assert is_courtesy("Thanks, glad I could help!")
    assert is_courtesy("Let me know if you need anything else.")
    assert not is_courtesy("Thanks to the new law, refunds take 5 days.")
    assert not is_courtesy("Sorry is a song by Justin Bieber.")
