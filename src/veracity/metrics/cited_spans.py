"""Which contexts each part of an answer cites: inline markers, or the sample's
``citations`` field.

Inline markers: ``[1]``, ``[1, 3]``, ``[1][3]``, ``[^1]``, ``【1】``, ``^1`` (after a word,
not a number: ``10^6`` is a power) and ``(Source 2)``
(also ``(Sources 1 and 2)``, ``(doc 3)``, ``(passage 4)``). A marker cites for the sentence
it ends, before or after its full stop ("… in 1889 [2]." or "… in 1889. [2] It …"). Indices
are 1-based unless the run declares 0 (``citation_index_base``); an index past the last
context is kept, and noted: it cites nothing that exists.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from veracity.judges.offline.claims import extract
from veracity.text.analysis import content_tokens
from veracity.types import Sample

__all__ = ["CitedSpan", "cited_spans", "merged_spans", "span_of", "unclaimed", "without_markers"]

_NUMBERS = r"\d{1,4}(?:\s*(?:,|;|、|and|&)\s*\d{1,4})*"
_SOURCE = (
    r"source|sources|src|ref|refs|reference|references|doc|docs|document|documents|"
    r"passage|passages|context|contexts"
)
MARKER = re.compile(
    rf"\[\^?\s*({_NUMBERS})\s*\]|【\s*({_NUMBERS})\s*】|(?<![\d\s^])\^(\d{{1,4}})\b"
    rf"|\(\s*(?:{_SOURCE})\s*#?\s*({_NUMBERS})\s*\)",
    re.IGNORECASE,
)
_END = "[.!?。！？]"
# Markers after a sentence's end cite that sentence: "… in 1889. [2] It is …".
_AFTER_END = re.compile(rf"({_END})((?:\s*(?:{MARKER.pattern}))+)", re.IGNORECASE)
_SENTENCE_END = re.compile(rf"(?<={_END})\s+")
_SPACE_BEFORE_STOP = re.compile(r"\s+([.,;:!?。！？])")


@dataclass(frozen=True, slots=True)
class CitedSpan:
    """A sentence of the answer (or a text the ``citations`` field names) and the 0-based
    indices of the contexts it cites."""

    text: str
    cites: tuple[int, ...]


def _numbers(marker: re.Match[str]) -> list[int]:
    found = next(group for group in marker.groups() if group is not None)
    return [int(n) for n in re.findall(r"\d+", found)]


def _cited(text: str, base: int) -> tuple[int, ...]:
    numbers = [n for m in MARKER.finditer(text) for n in _numbers(m)]
    return tuple(dict.fromkeys(n - base for n in numbers))


def without_markers(text: str) -> str:
    """``text`` without its citation markers; text without any is returned as it is."""
    if MARKER.search(text) is None:
        return text
    return _SPACE_BEFORE_STOP.sub(r"\1", " ".join(MARKER.sub(" ", text).split()))


def _inline(answer: str, base: int) -> list[CitedSpan]:
    moved = _AFTER_END.sub(lambda m: f"{m.group(2)}{m.group(1)}", answer.strip())
    spans = []
    for sentence in _SENTENCE_END.split(moved):
        text = _SPACE_BEFORE_STOP.sub(r"\1", " ".join(MARKER.sub(" ", sentence).split()))
        if text:
            spans.append(CitedSpan(text, _cited(sentence, base)))
    return spans


def cited_spans(sample: Sample, base: int = 1) -> tuple[list[CitedSpan], list[str]]:
    """The parts of ``sample``'s answer with the contexts they cite (the ``citations``
    field when the sample has it, else the inline markers), and notes on citations of
    contexts that do not exist."""
    if sample.citations:
        spans = [
            CitedSpan(c.text, tuple(dict.fromkeys(i - base for i in c.contexts)))
            for c in sample.citations
        ]
    else:
        spans = _inline(sample.answer, base)
    dangling = sorted(
        {i for span in spans for i in span.cites if not 0 <= i < len(sample.contexts)}
    )
    notes = (
        [
            f"citation(s) of context(s) {', '.join(str(i + base) for i in dangling)}: there "
            f"are {len(sample.contexts)} context(s) (indices from {base})"
        ]
        if dangling
        else []
    )
    return spans, notes


def span_of(claim: str, spans: Sequence[CitedSpan]) -> int | None:
    """The span the claim was drawn from: the one holding most of its words."""
    words = set(content_tokens(claim))
    best, best_share = None, 0.0
    for index, span in enumerate(spans):
        share = len(words & set(content_tokens(span.text))) / len(words) if words else 0.0
        if share > best_share:
            best, best_share = index, share
    return best


def merged_spans(claim: str, spans: Sequence[CitedSpan]) -> tuple[int, ...]:
    """The spans a claim restates whole (four fifths of the words of each, three words at
    least), when it restates two or more that state something: one claim for sentences that
    may cite different passages belongs to neither's citations, and each of them is judged
    in its own words instead (:func:`unclaimed`)."""
    words = set(content_tokens(claim))
    held = tuple(
        n
        for n, span in enumerate(spans)
        if len(own := set(content_tokens(span.text))) >= 3
        and len(own & words) >= 0.8 * len(own)
        and _states_something(span.text)
    )
    return held if len(held) > 1 else ()


def _states_something(text: str) -> bool:
    return bool(extract(text, split_clauses=False).claims)


def unclaimed(spans: Sequence[CitedSpan], claims: Sequence[str]) -> list[int]:
    """In an answer that cites, the spans that state something yet no claim was drawn from
    (or only a claim merging it with another span): a judge that merged two sentences into
    one claim, or skipped one, would otherwise leave that sentence out of citation recall
    and its citations unjudged. Each is judged as a claim in its own words."""
    if not any(span.cites for span in spans):
        return []
    drawn = {span_of(claim, spans) for claim in claims if not merged_spans(claim, spans)}
    return [n for n, span in enumerate(spans) if n not in drawn and _states_something(span.text)]
