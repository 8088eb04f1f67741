"""A claim that a context states: one of its sentences, word for word (case and
punctuation aside), with nothing around it that changes what it says."""

from __future__ import annotations

import tracemalloc

import pytest

from veracity.judges.llm.evidence import quotes_itself
from veracity.judges.verbatim import VERBATIM_WORDS, stating_contexts

CLAIM = "Peer to peer lending isn't FDIC insured."


@pytest.mark.parametrize(
    "context",
    [
        "Peer to peer lending isn't FDIC insured.",  # the whole context
        "Savings grow slowly. Peer to peer lending isn't FDIC insured. You can lose it all.",
        "Risks!  PEER TO PEER LENDING ISN’T FDIC INSURED",  # a layout break, case, apostrophe
        "Risks\n* peer-to-peer lending isn't FDIC-insured\nYou can lose it all.",  # a bullet
        'He said: no. "Peer to peer lending isn\'t FDIC insured." Then he left.',
        "Risks (read first)\n\tPeer to peer lending isn't FDIC insured\n\nMore below.",
    ],
)
def test_a_sentence_of_the_context_is_stated(context: str) -> None:
    assert stating_contexts(CLAIM, [context]) == (0,)


@pytest.mark.parametrize(
    "context",
    [
        "Some forums claim peer to peer lending isn't FDIC insured.",  # framed
        "Peer to peer lending isn't FDIC insured, unless the platform is a bank.",  # qualified
        "Peer to peer lending isn't FDIC insured?",  # a question
        "Myth: peer to peer lending isn't FDIC insured.",  # a label before it
        "Risks\n* peer-to-peer lending isn't FDIC-insured; you can lose it all",  # a clause
        "It is false that peer to peer lending isn't FDIC insured.",
        "Peer to peer lending isn't FDIC insured for 1.5 years.",
        "Peer to peer lending is FDIC insured.",
        "",
    ],
)
def test_words_inside_another_sentence_or_other_words_are_not_stated(context: str) -> None:
    assert stating_contexts(CLAIM, [context]) == ()


def test_a_decimal_point_does_not_end_the_sentence() -> None:
    claim = "The fee rose to 1 percent of the loan in 2020"
    assert stating_contexts(claim, ["The fee rose to 1.5 percent of the loan in 2020."]) == ()
    assert stating_contexts(claim, ["The fee rose to 1 percent of the loan in 2020."]) == (0,)


def test_every_context_that_states_it_is_named() -> None:
    contexts = [CLAIM, "Framed: some say peer to peer lending isn't FDIC insured.", CLAIM]
    assert stating_contexts(CLAIM, contexts) == (0, 2)


def test_a_short_claim_is_never_stated_its_words_may_be_about_anything() -> None:
    claim = "It is not insured."
    assert len(claim.split()) < VERBATIM_WORDS
    assert stating_contexts(claim, ["It is not insured."]) == ()


@pytest.mark.parametrize(
    "claim",
    ["", "   ", "\x00\x1b[31m", "(.*)+[a-z]{1,99}\\1 " * 3, "ünïcödé wörds ärë här tö stäy"],
)
def test_odd_claims_are_read_as_their_words(claim: str) -> None:
    contexts = ["(.*)+[a-z]{1,99}\\1 " * 3, "\x00\x1b[31m", "ünïcödé wörds ärë här tö stäy."]
    found = stating_contexts(claim, contexts)
    assert found == ((2,) if claim.startswith("ü") else ())


def test_a_huge_context_is_searched_not_copied_word_by_word() -> None:
    filler = "Filler text, of no consequence. " * 160_000  # 5 MB
    context = filler + "Peer to peer lending isn't FDIC insured. " + "   " * 100_000
    tracemalloc.start()
    try:
        assert stating_contexts(CLAIM, [context]) == (0,)
        # Found 160,000 times, never as a sentence of its own.
        assert stating_contexts("Filler text of no consequence filler text", [context]) == ()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * len(context)  # the case-folded copy, not a list of words


@pytest.mark.parametrize(
    ("quote", "itself"),
    [
        ("Peer to peer lending isn't FDIC insured.", True),
        ("peer-to-peer lending", True),  # a part of the claim
        ("Peer to peer lending isn't FDIC insured. That is a myth.", False),  # more than it
        ("This is a myth.", False),
        ("lending is FDIC insured", False),
        ("", False),
        ("  ...  ", False),
    ],
)
def test_a_quote_of_the_claims_own_words(quote: str, itself: bool) -> None:
    assert quotes_itself(CLAIM, quote) is itself
