"""pysbd's English segmenter, with the same output for less work.

Non-destructive segmentation (``clean=False``) ends by finding each sentence in the
original text to keep its trailing whitespace: pysbd compiles one pattern per sentence
for that (``re.escape(sentence) + r"\\s*"``), which no pattern cache can hold. On wice_dev's
contexts that was a quarter of the segmentation's CPU time. The same search with
``str.find`` gives the same spans.

Then two thirds of what is left went to abbreviations: for each of its 188 that occurs
anywhere in a line, even inside a word, pysbd searches the line for it after a space with
a case-insensitive pattern, looks for the character after it with another pattern, and
for each match rewrites the whole line with a third one, which changes nothing unless
the abbreviation is followed by its period. Three shortcuts give the same text for less
(``benchmarks/segmenter.py`` compares the sentences with pysbd's own on every development
set's texts, the tests on texts full of abbreviations): an abbreviation of letters is
found at the words' starts with ``str.find`` in the line folded as the pattern folds
letters (:func:`at_word_starts`); the character after it is looked for only where the
line holds what that pattern, as written (``(?<={abbr} ).{1}``), finds: the abbreviation
in braces, a literal; and a match is rewritten only when the line holds the abbreviation
with its period.
"""

from __future__ import annotations

from typing import Any

# What re's IGNORECASE lets an ASCII letter of a pattern match besides its two cases (the
# re module's documentation): İ and ı match i, ſ matches s, the Kelvin sign matches k.
_FOLD = str.maketrans(
    {**{chr(c): chr(c + 32) for c in range(ord("A"), ord("Z") + 1)},
     "\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"}
)  # fmt: skip


def at_word_starts(text: str, folded: str, abbreviation: str) -> list[str]:
    """What pysbd's ``re.findall(r"(?:^|\\s|\\r|\\n)" + abbreviation, text, re.IGNORECASE)``
    finds of an abbreviation of ASCII letters, stripped: ``text``'s words (whitespace apart,
    as re's ``\\s`` is) that start with it, each such start as written. ``folded`` is
    ``text.translate(_FOLD)``, its letters folded as IGNORECASE compares them with ASCII
    ones (character for character: the same positions), or that of an earlier ``text``
    which differs from it only in characters other than letters and whitespace."""
    key = abbreviation.translate(_FOLD)
    found: list[str] = []
    start = folded.find(key)
    while start >= 0:
        if start == 0 or text[start - 1].isspace():
            found.append(text[start : start + len(key)])
        start = folded.find(key, start + 1)
    return found


def fast_segmenter() -> Any:
    """A ``pysbd.Segmenter(language="en", clean=False)``: its sentences found in the text
    with ``str.find``, and its abbreviations with the shortcuts above."""
    import re

    import pysbd  # type: ignore[import-untyped, import-not-found, unused-ignore]
    from pysbd.lang.english import English  # type: ignore[import-untyped, import-not-found, unused-ignore]
    from pysbd.utils import TextSpan  # type: ignore[import-untyped, import-not-found, unused-ignore]

    abbreviations: list[str] = English.Abbreviation.ABBREVIATIONS
    # pysbd puts an abbreviation into its patterns unescaped: one with a period (a wildcard
    # there, matching a space too) is searched for with pysbd's own pattern.
    lettered = frozenset(a for a in abbreviations if a.strip().isalpha() and a.strip().isascii())

    class Abbreviations(English.AbbreviationReplacer):  # type: ignore[misc]
        def search_for_abbreviations_in_string(self, text: str) -> str:
            # pysbd's loop (pysbd.abbreviation_replacer), with the shortcuts above. Its
            # rewrites turn periods into another character: the words' starts stay.
            lowered, folded = text.lower(), text.translate(_FOLD)
            for abbreviation in abbreviations:
                stripped = abbreviation.strip()
                if stripped not in lowered:
                    continue
                if abbreviation in lettered:
                    matches = at_word_starts(text, folded, stripped)
                else:
                    matches = re.findall(rf"(?:^|\s|\r|\n){stripped}", text, flags=re.IGNORECASE)
                following: list[str] = []
                if matches and "{" + stripped + "} " in text:  # what pysbd's pattern finds
                    following = re.findall(r"(?<={" + re.escape(stripped) + "} ).{1}", text)
                for index, match in enumerate(matches):
                    text = self.scan_for_replacements(text, match, index, following)
            return text

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
