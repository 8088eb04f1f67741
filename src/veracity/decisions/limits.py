"""What one request to a decision server may hold, how a request is split to fit, and what
a server's refusal of a too-large request says of its limits."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from veracity.decisions.base import Question, ServerLimits

# vLLM's and Ollama's System One servers take 64 questions of at most 26 options each.
SYSTEMONE_LIMITS = ServerLimits(max_questions=64, max_options=26)
# OpenAI's Decisions API: 1-400 questions, 2-255 choices.
OPENAI_DECISIONS_LIMITS = ServerLimits(max_questions=400, max_options=255)

LimitKind = Literal["questions", "options"]

# Statuses with which a server refuses a request over its limits: 413 whatever it says,
# 400 and 422 when the message speaks of a limit.
_TOO_LARGE = 413
_VALIDATION = frozenset({400, 422})
_LIMIT_WORDS = re.compile(
    r"too (?:many|large|long)|at most|no more than|up to|maximum|\bmax\b|limit|exceed"
    r"|\d+\s*(?:-|–|to)\s*\d+|between\s+\d+\s+and\s+\d+",
    re.IGNORECASE,
)
_QUESTION_WORDS = re.compile(r"question", re.IGNORECASE)
# The number a limit message gives: "at most 32", "maximum of 32", "1-400", "between 2 and
# 255", "limit is 32".
_LIMIT_NUMBER = re.compile(
    r"(?:at most|no more than|up to|maximum(?: of| is| length)?|\bmax\b:?"
    r"|limit(?: of| is)?:?|exceeds?(?: the limit of)?)\s*(\d+)"
    r"|between\s+\d+\s+and\s+(\d+)|\d+\s*(?:-|–|to)\s*(\d+)",
    re.IGNORECASE,
)
# What a limit counts: the word right after its number or words ("at most 32 questions",
# "2-10 levels", "too many options"), else the last named before them.
_COUNTED = re.compile(r"\W*(question|option|choice|level|criteri)", re.IGNORECASE)
_NOUNS = re.compile(r"question|option|choice|level|criteri", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class LimitRefusal:
    """A server's refusal of a request over one of its limits: which, and the number it
    gave (``None`` when it gave none)."""

    kind: LimitKind
    limit: int | None


def limit_refusal(status: int | None, message: str) -> LimitRefusal | None:
    """The refusal a server's error (``status``, ``message``) is, if it is one: a 413, or
    a 400 / 422 whose message speaks of a limit of questions or options (too many
    questions, "at most N" options…); a 413 naming neither is about questions."""
    words = _LIMIT_WORDS.search(message)
    if status != _TOO_LARGE and not (status in _VALIDATION and words):
        return None
    found = _LIMIT_NUMBER.search(message)
    limit = int(next(group for group in found.groups() if group)) if found else None
    where = found or words
    counted = _COUNTED.match(message, where.end()) if where else None
    noun = counted.group(1) if counted else None
    if noun is None:
        before = _NOUNS.findall(message, 0, where.start()) if where else []
        noun = before[-1] if before else None
    if noun is None:
        if status != _TOO_LARGE:
            return None  # a limit of something else (a string's length, a token budget)
        noun = "question"
    about_options = _QUESTION_WORDS.match(noun) is None
    return LimitRefusal("options" if about_options else "questions", limit)


def question_limit_after(refusal: LimitRefusal, sent: int) -> int | None:
    """The questions a request may hold, learnt from ``refusal`` of ``sent`` questions: the
    number the server gave when it is below what was sent, else half of it; ``None`` when
    a single question was refused (nothing to split)."""
    if refusal.limit is not None and 1 <= refusal.limit < sent:
        return refusal.limit
    return sent // 2 if sent > 1 else None


def split(
    questions: Sequence[Question], limits: ServerLimits
) -> tuple[list[tuple[Question, ...]], list[Question]]:
    """``questions`` in as few requests as ``limits`` allow, of sizes as even as can be (the
    requests go at once: the slowest sets the time), and the questions no request may hold
    (more options than a question may have: a question cannot be split)."""
    fitting = [q for q in questions if len(q.options) <= limits.max_options]
    too_wide = [q for q in questions if len(q.options) > limits.max_options]
    if not fitting:
        return [], too_wide
    parts = -(-len(fitting) // max(limits.max_questions, 1))
    size, extra = divmod(len(fitting), parts)
    requests: list[tuple[Question, ...]] = []
    start = 0
    for index in range(parts):
        end = start + size + (1 if index < extra else 0)
        requests.append(tuple(fitting[start:end]))
        start = end
    return requests, too_wide


def too_wide_reason(question: Question, limits: ServerLimits) -> str:
    """Why ``question`` was not asked: more options than the server takes."""
    return (
        f"{question.name} has {len(question.options)} options, over the {limits.max_options} "
        "a question may have on this server (a question cannot be split): it was not asked"
    )
