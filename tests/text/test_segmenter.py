"""The segmenter gives pysbd's sentences and spans, for less work."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("pysbd")

import pysbd  # type: ignore[import-untyped, import-not-found, unused-ignore]

from veracity.text.segmenter import _FOLD, at_word_starts, char_spans, fast_segmenter

TEXTS = [
    "It was built in 1889. It is in Paris.  Dr. Smith lives there.\n\nHe left in 1901.",
    "Same. Same. Same.\u00a0Other one. Same.",
    "The U.S. economy grew 2.5% in Q3. Mr. Brown (the CEO) said so. e.g. this one; i.e. no.",
    "No end punctuation here and a trailing space ",
    "Wait... what? Yes! no. A list: 1. first 2. second. St. Louis, Mo. is big.",
    "“Quoted sentence.” Next one.\tTabbed one.\u2003Em-spaced one.",
    "",
    "x",
    # Abbreviations: words that merely start with one ("company", "also", "Inc" in
    # "Incident"), one in capitals, after a line break, at the start, with and without its
    # period, and the letters re's IGNORECASE folds (the dotted and dotless i, the long s,
    # the Kelvin sign).
    "The company also sued Co. Ltd. in 2001. Alsace is far. Incident reports: Inc. Corp.",
    "CO. sales rose. Prof. Adams arrived.\nvs. the others. Fig. 2 shows it. No. 5 won.",
    "Mt. Everest is high. mt. everest too. \u0130nc. it was. \u017ft. Louis. \u212amt. no.",
    "ca. 1900 the Gen. staff met; approx. 30 came. Jan. 5th was cold. etc. and so on.",
    "e.g. this, i.e. that. U.S. troops and Ph.D. students went to D.C. on Dec. 3.",
]


def _pysbd_spans(text: str, sentences: list[str]) -> list[tuple[int, int]]:
    """pysbd's own way (``Segmenter.sentences_with_char_spans``), as a reference."""
    spans: list[tuple[int, int]] = []
    prior = 0
    for sentence in sentences:
        for match in re.finditer(re.escape(sentence) + r"\s*", text):
            if match.end() > prior:
                spans.append(match.span())
                prior = match.end()
                break
    return spans


@pytest.mark.parametrize("text", TEXTS)
def test_the_fast_segmenter_segments_as_pysbd_does(text: str) -> None:
    reference = pysbd.Segmenter(language="en", clean=False)
    assert fast_segmenter().segment(text) == reference.segment(text)


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("a. b. a. b.", ["a.", "b.", "a.", "b."]),
        ("a. a. a.", ["a.", "a.", "missing", "a."]),  # one not found is left out
        ("ab ab", ["ab", "b", "ab"]),
        ("x \u2003\n y", ["x", "y", ""]),
        ("", [""]),
    ],
)
def test_sentences_are_found_where_pysbds_pattern_finds_them(
    text: str, sentences: list[str]
) -> None:
    assert char_spans(text, sentences) == _pysbd_spans(text, sentences)


@pytest.mark.parametrize("abbreviation", ["co", "inc", "al", "kg", "st", "mt"])
def test_abbreviations_are_found_at_word_starts_as_pysbds_pattern_finds_them(
    abbreviation: str,
) -> None:
    # A word starts at the text's start or after any whitespace (a tab, a no-break space)
    # and nowhere else: "nc" is inside "\u0130nc", and "G," is inside "\u212aG,"; the
    # dotted and dotless i, the long s and the Kelvin sign fold as IGNORECASE folds them.
    text = "Co. \u0130nc\tAL\u00a0\u212aG, company inco Co co-op \u017ft. \u0131nc. mt.Mt"
    pattern = r"(?:^|\s|\r|\n)" + abbreviation
    expected = [m.strip() for m in re.findall(pattern, text, flags=re.IGNORECASE)]
    assert at_word_starts(text, text.translate(_FOLD), abbreviation) == expected
    # pysbd's rewrites turn periods into "∯": the words' starts found are the same.
    rewritten = text.replace(".", "\u222f")
    assert at_word_starts(rewritten, text.translate(_FOLD), abbreviation) == expected
