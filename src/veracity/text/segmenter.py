"""pysbd's English segmenter, with the same output for less work.

Non-destructive segmentation (``clean=False``) ends by finding each sentence in the
original text to keep its trailing whitespace: pysbd compiles one pattern per sentence
for that (``re.escape(sentence) + r"\\s*"``), which no pattern cache can hold. On wice_dev's
contexts that was a quarter of the segmentation's CPU time. The same search with
``str.find`` gives the same spans.

Then two thirds of what is left went to abbreviations: for each of its 188 that occurs
anywhere in a line, even inside a word, pysbd searches the line for it after a space, and
for each match rewrites the whole line with another pattern, which changes nothing unless
the abbreviation is followed by its period. Two shortcuts skip only what cannot change
the text (``benchmarks/segmenter.py`` compares the sentences with pysbd's own on every
development set's texts, the tests on texts full of abbreviations):
an abbreviation of letters is searched for only when some word starts with it, and a
match is rewritten only when the line holds the abbreviation with its period.
"""

from __future__ import annotations

from typing import Any

# What re's IGNORECASE lets an ASCII letter of a pattern match besides its two cases (the
# re module's documentation): İ and ı match i, ſ matches s, the Kelvin sign matches k.
_FOLD = str.maketrans(
    {**{chr(c): chr(c + 32) for c in range(ord("A"), ord("Z") + 1)},
     "\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"}
)  # fmt: skip


def word_starts(text: str, lengths: frozenset[int]) -> frozenset[str]:
    """The beginnings, of each length in ``lengths``, of ``text``'s words (whitespace
    apart, as re's ``\\s`` is), folded as IGNORECASE compares ASCII letters: where
    pysbd's ``(?:^|\\s)abbr`` can match an abbreviation of letters."""
    words = text.translate(_FOLD).split()
    return frozenset(word[:n] for word in words for n in lengths if len(word) >= n)


def fast_segmenter() -> Any:
    """A ``pysbd.Segmenter(language="en", clean=False)``: its sentences found in the text
    with ``str.find``, and its abbreviations with the two shortcuts above."""
    import pysbd  # type: ignore[import-untyped, import-not-found, unused-ignore]
    from pysbd.lang.english import English  # type: ignore[import-untyped, import-not-found, unused-ignore]
    from pysbd.utils import TextSpan  # type: ignore[import-untyped, import-not-found, unused-ignore]

    abbreviations: list[str] = English.Abbreviation.ABBREVIATIONS
    # pysbd puts an abbreviation into its patterns unescaped: one with a period (a wildcard
    # there, matching a space too) is always searched for.
    lettered = {a: a.strip() for a in abbreviations if a.strip().isalpha()}
    lengths = frozenset(len(stripped) for stripped in lettered.values())

    class Abbreviations(English.AbbreviationReplacer):  # type: ignore[misc]
        lang: Any  # pysbd's language class

        def search_for_abbreviations_in_string(self, text: str) -> str:
            starts = word_starts(text, lengths)
            possible = [a for a in abbreviations if a not in lettered or lettered[a] in starts]
            language: Any = self.lang
            self.lang = _with_abbreviations(language, possible)
            try:
                found: str = super().search_for_abbreviations_in_string(text)
            finally:
                self.lang = language
            return found

        def scan_for_replacements(self, txt: str, am: str, ind: int, char_array: list[str]) -> str:
            abbreviation = am.strip()
            if abbreviation.isalpha() and abbreviation + "." not in txt:
                return txt  # every rewrite wants the abbreviation's period after it
            replaced: str = super().scan_for_replacements(txt, am, ind, char_array)
            return replaced

    class FastEnglish(English):  # type: ignore[misc]
        AbbreviationReplacer = Abbreviations

    class Segmenter(pysbd.Segmenter):  # type: ignore[misc]
        def sentences_with_char_spans(self, sentences: list[str]) -> list[Any]:
            text: str = self.original_text
            return [TextSpan(text[s:e], s, e) for s, e in char_spans(text, sentences)]

    segmenter = Segmenter(language="en", clean=False)
    segmenter.language_module = FastEnglish
    return segmenter


def _with_abbreviations(language: Any, abbreviations: list[str]) -> Any:
    """``language`` whose abbreviation list is ``abbreviations``."""
    listed = type("Abbreviation", (language.Abbreviation,), {"ABBREVIATIONS": abbreviations})
    return type(language.__name__, (language,), {"Abbreviation": listed})


def char_spans(text: str, sentences: list[str]) -> list[tuple[int, int]]:
    """Where each sentence is in ``text``, its trailing whitespace included: the first
    occurrence ending after the previous sentence's end, as pysbd's
    ``re.finditer(re.escape(sentence) + r"\\s*", text)`` finds it (non-overlapping
    matches, left to right); a sentence not found after it is left out, as pysbd does."""
    spans: list[tuple[int, int]] = []
    prior_end = 0
    for sentence in sentences:
        position = 0
        while (start := text.find(sentence, position)) >= 0:
            end = start + len(sentence)
            while end < len(text) and text[end].isspace():  # what the pattern's \s* takes
                end += 1
            if end > prior_end:
                spans.append((start, end))
                prior_end = end
                break
            # finditer goes on from the end of a match (one further after an empty one)
            position = end if end > start else start + 1
    return spans
