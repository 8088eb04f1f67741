"""detect_refusal: each phrase family, word boundaries, and ordinary text."""

from __future__ import annotations

import pytest

from veracity.judges.parsing.reader import detect_refusal


@pytest.mark.parametrize(
    ("text", "family"),
    [
        ("I cannot verify these claims.", '"I cannot"'),
        ("i CAN NOT do this", '"I cannot"'),
        ("I can't help with that.", '"I cannot"'),
        ("I can\u2019t help with that.", '"I cannot"'),
        ("I won't answer.", '"I will not"'),
        ("I'm unable to judge the claims.", '"I am unable to"'),
        ("I am not able to do that.", '"I am unable to"'),
        ("I apologize, but the context is missing.", '"I apologize"'),
        ("I apologise for the confusion.", '"I apologize"'),
        ("Sorry, the request is unclear.", '"sorry"'),
        ("As an AI, I have no opinion.", '"as an AI"'),
        ("As an AI language model I must decline.", '"as an AI"'),
        ("There is insufficient information to judge.", '"insufficient information"'),
        ("Not enough context to answer.", '"insufficient information"'),
    ],
)
def test_refusal_families(text: str, family: str) -> None:
    reason = detect_refusal(text)
    assert reason is not None
    assert family in reason
    assert len(reason) < 200


def test_reason_quotes_the_refusing_sentence() -> None:
    reason = detect_refusal("Thanks for the question. I cannot judge this. Goodbye.")
    assert reason is not None
    assert "'I cannot judge this.'" in reason
    assert "Goodbye" not in reason


@pytest.mark.parametrize(
    "text",
    [
        "The claims are all supported.",
        "We cannot verify it.",  # not the judge speaking
        "Icannot is not a word",  # word boundary
        "The sorrowful tale",  # 'sorry' needs a word boundary
        "Dubai served as an AIrline hub",  # "as an AI" needs a word boundary
        "",
    ],
)
def test_ordinary_text_is_not_a_refusal(text: str) -> None:
    assert detect_refusal(text) is None
