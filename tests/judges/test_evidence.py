"""The evidence check: is a supported verdict's quote really in the contexts?"""

from __future__ import annotations

import pytest

from veracity.judges.llm.evidence import quote_in_contexts
from veracity.prompts import render_extraction, render_verification

CONTEXTS = (
    "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France.",
    "It was finished in 1889 for the World's Fair.",
)


@pytest.mark.parametrize(
    "quote",
    [
        "It was finished in 1889 for the World's Fair.",
        "it was FINISHED in 1889,   for the world's fair",  # case, spaces, punctuation
        "The Eiffel Tower is a wrought iron lattice tower on the Champs de Mars",  # a typo
        "The Eiffel Tower is a wrought-iron lattice tower … in Paris, France.",  # skips words
        '<context index="2">It was finished in 1889</context>',  # our markup around it
    ],
)
def test_quotes_found(quote: str) -> None:
    assert quote_in_contexts(quote, CONTEXTS)


@pytest.mark.parametrize(
    "quote",
    [
        "",
        '<context index="1">',  # only our own markup, quoted back
        "The Eiffel Tower was finished in 1925.",  # a claim, not a quote
        "The Eiffel Tower is a wrought-iron tower … painted gold every year.",  # a part missing
        "is",  # inside "this" and "Paris" but not a word there: words only
    ],
)
def test_quotes_not_found(quote: str) -> None:
    contexts = ("This Paris.",) if quote == "is" else CONTEXTS
    assert not quote_in_contexts(quote, contexts)


def test_contexts_are_shown_without_double_quotes_and_quotes_of_them_still_match() -> None:
    context = 'The Reichstag (German: "Reichstagsgebäude") is in Berlin.'
    shown = render_verification(["The Reichstag is in Berlin."], (context,))["contexts"]
    # A double quote copied into the JSON evidence string would end it early.
    assert '"' not in shown.replace('index="1"', "")
    assert quote_in_contexts("(German: 'Reichstagsgebäude') is in Berlin", (context,))


def test_the_answer_is_shown_without_double_quotes_to_the_extractor() -> None:
    shown = render_extraction("q", 'She starred in a film named "Lead Like A Woman".')["answer"]
    assert "'Lead Like A Woman'" in shown and '"' not in shown
