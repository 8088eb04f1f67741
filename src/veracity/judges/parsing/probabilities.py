"""What a judge's token log-probabilities say about the values its reply wrote.

Where an endpoint returns log-probabilities (OpenAI, vLLM, llama.cpp), the reply is not
just one label: at the token where a label or a score begins, the model also weighed the
other labels and scores. These pure functions find that token for each value the reply
wrote and turn its alternatives into a distribution over the allowed values (G-Eval's
probability-weighted score, for scores). They never guess: a reply whose tokens do not
spell its text, a value they cannot locate, or alternatives that name no allowed value
give ``None``, and the caller keeps the written value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

from veracity.types import TokenLogprob

K = TypeVar("K", bound=Hashable)
_DIGITS = re.compile(r"\d+")


def locate_values(text: str, values: Sequence[str], keys: Sequence[str]) -> list[int | None]:
    """The offset in ``text`` where each of ``values`` was written as the JSON value of one
    of ``keys`` (any case; ``"verdict": "supported"``, ``"score": 4``), in order, each
    after the one before; ``None`` for a value not written so (a legacy text reply, say)."""
    names = "|".join(map(re.escape, keys))
    offsets = [m.end() for m in re.finditer(rf'"(?:{names})"\s*:\s*"?', text, re.IGNORECASE)]
    found: list[int | None] = []
    for value in values:
        written = [text[o : o + len(value)].casefold() for o in offsets]
        at = next((i for i, w in enumerate(written) if value and w == value.casefold()), None)
        found.append(None if at is None else offsets[at])
        offsets = offsets if at is None else offsets[at + 1 :]
    return found


def _weighed_at(
    tokens: Sequence[TokenLogprob], text: str, offset: int | None
) -> tuple[list[tuple[str, float]], str] | None:
    """The continuations the model weighed at ``offset`` of ``text``: each alternative of
    the token that covers it, minus the part of the written token before ``offset``, with
    its probability; and the written continuation. ``None`` unless the tokens spell
    ``text``."""
    if offset is None or "".join(t.token for t in tokens) != text:
        return None
    start = 0
    for token in tokens:
        if start + len(token.token) > offset:
            break
        start += len(token.token)
    else:
        return None
    prefix = token.token[: offset - start]
    pairs = list(token.top) or [(token.token, token.logprob)]
    if all(alt != token.token for alt, _ in pairs):
        pairs.append((token.token, token.logprob))
    continuations = [
        (alt[len(prefix) :], math.exp(logprob))
        for alt, logprob in pairs
        if alt.startswith(prefix) and len(alt) > len(prefix)
    ]
    return continuations, token.token[len(prefix) :]


def choice_probabilities(
    tokens: Sequence[TokenLogprob], text: str, offset: int | None, choices: Mapping[str, K]
) -> dict[K, float] | None:
    """The probability of each choice at the value written at ``offset``.

    ``choices`` maps each way of writing a choice (``"supported"``) to the choice. An
    alternative token counts for a choice when one is a prefix of the other, ignoring case,
    and no other choice also fits it (``"not"`` fits ``"not_enough_info"`` only). The
    probabilities are normalised over the choices found.
    """
    found = _weighed_at(tokens, text, offset)
    if found is None:
        return None
    mass: dict[K, float] = {}
    for continuation, probability in found[0]:
        piece = continuation.casefold()
        fits = {
            choice
            for written, choice in choices.items()
            if written.casefold().startswith(piece) or piece.startswith(written.casefold())
        }
        if len(fits) == 1:
            choice = fits.pop()
            mass[choice] = mass.get(choice, 0.0) + probability
    total = sum(mass.values())
    if total <= 0:
        return None
    return {choice: p / total for choice, p in mass.items()}


def weighted_number(
    tokens: Sequence[TokenLogprob], text: str, offset: int | None, low: int, high: int
) -> float | None:
    """The probability-weighted value of the integer written at ``offset`` (G-Eval).

    Only where the written number is one token (``"4"`` on a 1–5 scale; ``"85"`` with
    tokenizers that keep numbers whole): the alternatives of a number split into digits do
    not say which number they would have become. Alternatives outside ``low``–``high``
    are left out.
    """
    found = _weighed_at(tokens, text, offset)
    if found is None or offset is None:
        return None
    continuations, written = found
    number = _DIGITS.match(text, offset)
    if number is None or not written.startswith(number.group()):
        return None  # the number goes on in the next token: split into digits
    mass: dict[int, float] = {}
    for continuation, probability in continuations:
        m = _DIGITS.match(continuation)
        if m is not None and low <= (value := int(m.group())) <= high:
            mass[value] = mass.get(value, 0.0) + probability
    total = sum(mass.values())
    if total <= 0:
        return None
    return sum(value * p for value, p in mass.items()) / total


def weighted_scores(
    text: str,
    tokens: Sequence[TokenLogprob],
    scores: Sequence[tuple[str, int]],
    low: int,
    high: int,
) -> list[float | None]:
    """The probability-weighted value of each ``(name, written score)`` of a reply, in
    order, each found as the first ``"score"`` after its name written as a JSON string
    (``"completeness"``, not the word in a reasoning). All ``None`` unless the names appear
    in the reply in that order: a score is never weighed by the tokens of another."""
    if not tokens:
        return [None] * len(scores)
    folded = text.casefold()
    starts, cursor = [], 0
    for name, _ in scores:
        found = folded.find(f'"{name.casefold()}"', cursor)
        if found < 0:
            return [None] * len(scores)
        starts.append(found)
        cursor = found + len(name) + 2
    weighted: list[float | None] = []
    for (_, written), start in zip(scores, starts, strict=True):
        (offset,) = locate_values(text[start:], [str(written)], ("score",))
        where = None if offset is None else start + offset
        weighted.append(weighted_number(tokens, text, where, low, high))
    return weighted
