"""A deterministic stand-in for a decision model: probabilities from word overlap.

It understands nothing. A question's *subject* is the content words of its instructions
that are neither the question's own vocabulary (its options' values and descriptions) nor
task words such as "claim", "context" or "supported"; its *coverage* is the share of the
subject found in the state. Then:

- a **choice** reads its options' names: one meaning "supported / yes / true / relevant"
  gains with coverage, one meaning "contradicted / no / false" gains when the subject is
  covered but the subject's sentence and the state's closest sentence disagree on a
  negation (``not`` / ``never`` / ``no``), one meaning "not enough information / unknown /
  neutral" gains as coverage falls; any other option gains with the share of its own words
  found in the state. Probabilities are a softmax of those strengths;
- a **predicate** is true with a probability that rises with coverage (low on a negation
  clash);
- a **score** puts its mass around level ``coverage * (levels - 1)``: more overlap, higher
  levels.

A claim whose words are in the passages is therefore likely ``supported``, one whose words
are not leans ``not_enough_info``.

veracity's own decision questions have tagged states, read as the chat fake reads its
prompts: a question about ``passage [N]`` looks in ``<context index="N">`` only; with an
``<answer>`` in the state, the answer is graded against the ``<reference>`` when the
instructions name one (an answer covered by it is ``correct``, one that is not ``wrong``,
one that declines ``dont_know``), else the ``<question>``'s words are looked for in the
answer (relevance).

Probabilities are rounded to four decimals, as real decision servers send them, so a
distribution sums to one within a few 1e-4.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from veracity.decisions.base import Option, Question
from veracity.testing._words import (
    ANSWER_RE,
    QUESTION_RE,
    REFERENCE_RE,
    block_text,
    content_words,
    has_negation,
    is_refusal,
    sentences,
    tag_text,
    words,
)

Role = Literal["affirm", "deny", "abstain", "other"]

# Words that say what kind of question this is rather than what it is about.
_TASK_WORDS_TEXT = """
    claim claims statement statements context contexts passage passages state text texts
    document documents source sources question questions answer answers response responses
    supported support supports according information enough whether true false correct
    relevant given following decide judge rate evidence retrieved chunk chunks contain
    contains stated state says said mention mentions mentioned
"""
TASK_WORDS = frozenset(_TASK_WORDS_TEXT.split())
_ABSTAIN_TEXT = """
    enough insufficient unknown neutral unclear unverifiable undetermined cannot nei dont
    declines abstains
"""
_ABSTAIN = frozenset(_ABSTAIN_TEXT.split())
_DENY_TEXT = """
    contradicted contradicts contradiction contradict refuted refutes refute false no
    incorrect wrong unsupported irrelevant disagree disagrees inconsistent conflict conflicts
"""
_DENY = frozenset(_DENY_TEXT.split())
_AFFIRM_TEXT = """
    supported supports support entailed entails entailment true yes correct relevant
    consistent agree agrees confirmed confirms
"""
_AFFIRM = frozenset(_AFFIRM_TEXT.split())
PASSAGE_RE = re.compile(r"\bpassage\s*\[(\d+)\]", re.IGNORECASE)
INDEXED_CONTEXT_RE = re.compile(r'<context\s[^>]*index="?(\d+)"?[^>]*>(.*?)</context>', re.DOTALL)
# How sharply strengths become probabilities, how fast coverage turns into support, and
# where it crosses one half (the chat fake's support threshold).
SHARPNESS = 4.0
SUPPORT_SLOPE = 10.0
SUPPORT_MIDPOINT = 0.6
SCORE_SPREAD = 0.6
_DECIMALS = 4


def option_role(value: str, description: str = "") -> Role:
    """What an option means, read from its value and then its description."""
    for text in (value, description):
        found = set(words(text))
        if found & _ABSTAIN:
            return "abstain"
        if found & _DENY:
            return "deny"
        if found & _AFFIRM:
            return "deny" if has_negation(text) else "affirm"
    return "other"


@dataclass(frozen=True, slots=True)
class Reading:
    """What the overlap found for one question: its subject words, their coverage by the
    evidence, the support that coverage gives, whether a negation clashes, and whether an
    answer was graded against a reference (``graded``; ``refusal``: the answer declined)."""

    subject: frozenset[str]
    coverage: float
    support: float
    clash: bool
    graded: bool = False
    refusal: bool = False


@dataclass(frozen=True, slots=True)
class _Focus:
    """The text a question's subject is read from, and the text it is looked for in."""

    asked: str
    evidence: str
    graded: bool = False


def _focus(state: str, instructions: str) -> _Focus:
    """Where to look, for the tagged states of veracity's own decision questions (as the chat
    fake reads its prompts): a passage named by number (``passage [2]``) is looked for in
    that ``<context index="2">``; an ``<answer>`` is graded against the ``<reference>``
    when the instructions name one, else read against the ``<question>``. Anything else:
    the instructions' subject, looked for in the whole state."""
    passage = PASSAGE_RE.search(instructions)
    if passage is not None:
        for found in INDEXED_CONTEXT_RE.finditer(state):
            if found.group(1) == passage.group(1):
                return _Focus(instructions, block_text(found.group(2)))
    answer = tag_text(ANSWER_RE, state)
    if answer:
        reference = tag_text(REFERENCE_RE, state)
        if reference and "reference" in words(instructions):
            return _Focus(answer, reference, graded=True)
        question = tag_text(QUESTION_RE, state)
        if question:
            return _Focus(question, answer)
    return _Focus(instructions, state)


def read(state: str, question: Question) -> Reading:
    """The overlap of ``question``'s subject with its evidence in ``state``."""
    own: set[str] = set()
    for option in question.options:
        own |= content_words(option.value) | content_words(option.description)
    focus = _focus(state, question.instructions)
    subject = frozenset(content_words(focus.asked) - own - TASK_WORDS)
    evidence_words = content_words(focus.evidence)
    coverage = len(subject & evidence_words) / len(subject) if subject else 0.0
    refusal = focus.graded and _declines(focus.asked)
    if refusal:
        coverage = 0.0
    support = 1.0 / (1.0 + math.exp(-SUPPORT_SLOPE * (coverage - SUPPORT_MIDPOINT)))
    clash = _clash(subject, focus.asked, focus.evidence)
    return Reading(subject, coverage, support, clash, focus.graded, refusal)


def _declines(answer: str) -> bool:
    parts = sentences(answer)
    return bool(parts) and all(is_refusal(part) for part in parts)


def _clash(subject: frozenset[str], instructions: str, state: str) -> bool:
    """Whether the instructions' sentence richest in subject words and the state's sentence
    closest to the subject disagree on a negation."""
    if not subject:
        return False
    asked = max(sentences(instructions) or [""], key=lambda s: len(subject & content_words(s)))
    candidates = sentences(state)
    if not candidates:
        return False
    closest = max(candidates, key=lambda s: len(subject & content_words(s)))
    if not subject & content_words(closest):
        return False
    return has_negation(asked) != has_negation(closest)


def _rounded(probabilities: Sequence[float]) -> tuple[float, ...]:
    return tuple(round(p, _DECIMALS) for p in probabilities)


def _softmax(strengths: Sequence[float]) -> list[float]:
    top = max(strengths)
    exps = [math.exp(SHARPNESS * (s - top)) for s in strengths]
    total = math.fsum(exps)
    return [e / total for e in exps]


@dataclass(frozen=True)
class OverlapDecider:
    """The default responder of :class:`~veracity.testing.FakeDecisionServer`: for a
    state and a question, a probability per option in the question's order (a predicate:
    ``false``, ``true``), or ``None`` to refuse — it never refuses (the server's
    ``refuse`` option scripts refusals)."""

    def __call__(self, state: str, question: Question) -> tuple[float, ...] | None:
        reading = read(state, question)
        if question.kind == "predicate":
            p_true = reading.support * (0.1 if reading.clash else 1.0)
            p_true = min(0.98, max(0.02, p_true))
            return _rounded((1.0 - p_true, p_true))
        if question.kind == "score":
            return _rounded(self._levels(len(question.options), reading.coverage))
        state_words = content_words(state)
        strengths = [
            self._strength(option_role(o.value, o.description), reading, o, state_words)
            for o in question.options
        ]
        return _rounded(_softmax(strengths)) if strengths else ()

    @staticmethod
    def _strength(role: Role, reading: Reading, option: Option, state_words: set[str]) -> float:
        if reading.graded:
            # An answer against its reference: it agrees, it does not, or it declined.
            if role == "abstain":
                return 1.0 if reading.refusal else 0.0
            if reading.refusal:
                return 0.0
            if role == "affirm":
                return 0.0 if reading.clash else reading.support
            if role == "deny":
                return 1.0 if reading.clash else 1.0 - reading.support
        if role == "affirm":
            return 0.0 if reading.clash else reading.support
        if role == "deny":
            return reading.support if reading.clash else 0.0
        if role == "abstain":
            return 1.0 - reading.support
        own = content_words(option.value) | content_words(option.description)
        return len(own & state_words) / len(own) if own else 0.0

    @staticmethod
    def _levels(n: int, coverage: float) -> list[float]:
        if n == 0:
            return []
        centre = coverage * (n - 1)
        weights = [math.exp(-((i - centre) ** 2) / (2 * SCORE_SPREAD**2)) for i in range(n)]
        total = math.fsum(weights)
        return [w / total for w in weights]
