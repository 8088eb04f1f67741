"""How much one judge call may send: a budget in tokens, checked before anything is rendered.

Sizes are estimated at four characters a token (the usual rule of thumb for English; a
tokenizer would cost more than the check saves), from the lengths of the texts a question
puts in its prompt, so a 50 MB answer is refused without a single copy of it being made.
A prompt over the budget is not sent; with ``truncate_contexts`` the contexts (only they:
never the question, answer, claims or reference) are cut to fit instead, and the judge
notes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

CHARS_PER_TOKEN = 4
DEFAULT_PROMPT_BUDGET = 32_000
# What delimiting adds around each text in a prompt (tags, an index, newlines).
DELIMITER_CHARS = 40
# Where a context was cut, so the judge (and whoever reads the prompt) can tell.
CUT_MARK = " [… cut to fit the prompt budget]"
# Contexts cut shorter than this would be judged on next to nothing: the call is refused.
MIN_CUT_CHARS = 200


def tokens_of(chars: int) -> int:
    """The estimated tokens of ``chars`` characters; never zero."""
    return chars // CHARS_PER_TOKEN + 1


def approx_tokens(text: str) -> int:
    """The estimated tokens of ``text``, at four characters a token."""
    return tokens_of(len(text))


class PromptTooLarge(Exception):
    """A judge question whose prompt would exceed the budget: it is not asked."""


@dataclass(frozen=True, slots=True)
class Fitted:
    """The contexts to send (cut or whole), and the note saying what was cut, if anything."""

    contexts: tuple[str, ...]
    note: str | None = None


@dataclass(frozen=True, slots=True)
class PromptBudget:
    """At most ``tokens`` (estimated) in one judge call; over it, the question is not asked,
    unless ``truncate_contexts`` lets the contexts be cut to fit."""

    tokens: int = DEFAULT_PROMPT_BUDGET
    truncate_contexts: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.tokens, bool) or not isinstance(self.tokens, int) or self.tokens < 1:
            raise ValueError(
                f"prompt budget: expected a positive number of tokens, not {self.tokens!r}"
            )

    def fit(
        self, texts: Sequence[str], contexts: Sequence[str] = (), *, fixed_chars: int = 0
    ) -> Fitted:
        """``contexts`` as they may be sent beside ``texts`` (and ``fixed_chars`` of
        instructions); raises :class:`PromptTooLarge` with the size when they cannot."""
        rest = fixed_chars + sum(len(text) + DELIMITER_CHARS for text in texts)
        lengths = [len(context) for context in contexts]
        chars = rest + sum(lengths) + DELIMITER_CHARS * len(lengths)
        if tokens_of(chars) <= self.tokens:
            return Fitted(tuple(contexts))
        over = (
            f"the judge's input would be about {tokens_of(chars):,} tokens ({chars:,} "
            f"characters), over its prompt budget of {self.tokens:,} tokens a call: not sent"
        )
        if not self.truncate_contexts or not contexts:
            hint = " (or let the contexts be cut to fit)" if contexts else ""
            raise PromptTooLarge(f"{over}; raise the prompt budget to send it{hint}")
        room = (self.tokens - 1) * CHARS_PER_TOKEN - rest - DELIMITER_CHARS * len(lengths)
        cap = _cap(lengths, room)
        if cap < MIN_CUT_CHARS:
            raise PromptTooLarge(
                f"{over}, and cutting the contexts would leave under {MIN_CUT_CHARS} "
                f"characters of each (the rest of the input is about {tokens_of(rest):,} "
                "tokens)"
            )
        cut = [i for i, n in enumerate(lengths) if n > cap]
        shown = ", ".join(f"{i + 1} ({lengths[i]:,})" for i in cut)
        note = (
            f"context(s) {shown} cut to {cap:,} characters each to fit the prompt budget of "
            f"{self.tokens:,} tokens"
        )
        kept = tuple(
            c if n <= cap else c[: cap - len(CUT_MARK)] + CUT_MARK
            for c, n in zip(contexts, lengths, strict=True)
        )
        return Fitted(kept, note)


def _cap(lengths: Sequence[int], room: int) -> int:
    """The largest length L with ``sum(min(n, L) for n in lengths) <= room``: the longest
    contexts are cut first, to a common length, and the short ones stay whole."""
    left, remaining = len(lengths), room
    for n in sorted(lengths):
        if n * left > remaining:
            return max(0, remaining // left)
        remaining -= n
        left -= 1
    return max(lengths, default=0)
