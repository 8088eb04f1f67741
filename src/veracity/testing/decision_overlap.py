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
are not leans ``not_enough_info``. Probabilities are rounded to four decimals, as real
decision servers send them, so a distribution sums to one within a few 1e-4.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from veracity.decisions.base import Option, Question
from veracity.testing._words import content_words, has_negation, sentences, words

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
_ABSTAIN_TEXT = "enough insufficient unknown neutral unclear unverifiable undetermined cannot nei"
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
    state, the support that coverage gives, and whether a negation clashes."""

    subject: frozenset[str]
    coverage: float
    support: float
    clash: bool


def read(state: str, question: Question) -> Reading:
    """The overlap of ``question``'s subject with ``state``."""
    own: set[str] = set()
    for option in question.options:
        own |= content_words(option.value) | content_words(option.description)
    subject = frozenset(content_words(question.instructions) - own - TASK_WORDS)
    state_words = content_words(state)
    coverage = len(subject & state_words) / len(subject) if subject else 0.0
    support = 1.0 / (1.0 + math.exp(-SUPPORT_SLOPE * (coverage - SUPPORT_MIDPOINT)))
    return Reading(subject, coverage, support, _clash(subject, question.instructions, state))


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
