"""Reading a decision server's answers strictly, by the type of question asked: one reader
for every wire format, each format only saying where its probabilities are.

An answer that cannot be read as what was asked (another type, a probability that is NaN,
negative or over one, probabilities for options never asked or none for one asked, a sum
far from one) is no verdict: the question gets a refusal saying why, and the other
questions of the request keep their answers. A body that is not of the expected shape at
all fails the request (:class:`~veracity.transport.CallFailedError`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from veracity._scrub import scrub_secrets
from veracity.decisions.base import Answer, Question
from veracity.types import Usage

# How far from one a distribution's sum may be and still be read (renormalised): servers
# round each probability (sparrow-decider to 4 places); past this it is no distribution.
SUM_TOLERANCE = 1e-2
DECLINED = "the model declined to answer"
UNANSWERED = "the server left the question unanswered"
# How much of a server's own word (an option it made up, a type) a reason quotes.
_QUOTED_CHARS = 40


class Unusable(Exception):
    """An answer that cannot be read as what was asked; its message says why."""


@dataclass(frozen=True, slots=True)
class Part:
    """What one request to a server gave: its answers by question name, its cost, the
    model the server named, and notes on what was read past."""

    answers: dict[str, Answer]
    usage: Usage
    model: str
    notes: tuple[str, ...] = ()


class AnswerReader:
    """Reads answers for one endpoint; ``key`` (the one sent) and anything shaped like a
    credential are scrubbed from every word of the server's that a reason or note keeps."""

    def __init__(self, key: str | None) -> None:
        self._key = key

    def quoted(self, value: object, limit: int = _QUOTED_CHARS) -> str:
        """A server's word as a reason may show it: one line, scrubbed, cut short."""
        text = scrub_secrets(" ".join(str(value).split()), self._key)
        return repr(text if len(text) <= limit else text[: limit - 1] + "…")

    def unusable(self, question: Question, reason: str) -> Answer:
        return refusal(question, f"the server's answer to {question.name} is unusable: {reason}")

    def answer(
        self,
        question: Question,
        answered_type: object,
        expected_type: str,
        read: Mapping[str, object] | object,
        confidence: object = None,
    ) -> Answer:
        """``question``'s answer from what the server gave: its type as the server named
        it against the one expected, then ``read`` — a predicate's P(true), or a choice's or
        score's probabilities by option value — and the confidence, if any."""
        try:
            if answered_type != expected_type:
                raise Unusable(
                    f"a {self.quoted(answered_type)} answer to a {expected_type} question"
                )
            if question.kind == "predicate":
                p_true = _probability("the probability", read)
                probabilities: tuple[tuple[str, float], ...] = (
                    ("false", 1.0 - p_true),
                    ("true", p_true),
                )
            else:
                if not isinstance(read, Mapping):
                    raise Unusable("no probabilities by option")
                probabilities = self._distribution(question, read)
            return Answer(
                question.name,
                question.kind,
                probabilities=probabilities,
                confidence=_confidence(confidence),
            )
        except Unusable as exc:
            return self.unusable(question, str(exc))

    def _distribution(
        self, question: Question, read: Mapping[str, object]
    ) -> tuple[tuple[str, float], ...]:
        values = question.option_values()
        unknown = [value for value in read if value not in values]
        if unknown:
            names = ", ".join(self.quoted(value) for value in unknown[:3])
            raise Unusable(f"probabilities for options never asked ({names})")
        missing = [value for value in values if value not in read]
        if missing:
            raise Unusable(f"no probability for {', '.join(map(repr, missing[:3]))}")
        probabilities = [
            (value, _probability(f"the probability of {value!r}", read[value])) for value in values
        ]
        total = math.fsum(p for _, p in probabilities)
        if abs(total - 1.0) > SUM_TOLERANCE:
            raise Unusable(f"probabilities sum to {total:.4g}")
        return tuple((value, p / total) for value, p in probabilities)

    def notes_on_extra(self, names: Sequence[object]) -> tuple[str, ...]:
        """A note on answers to questions never asked, which are read past."""
        if not names:
            return ()
        shown = ", ".join(self.quoted(name) for name in names[:3])
        more = f" and {len(names) - 3} more" if len(names) > 3 else ""
        return (f"the server answered questions never asked ({shown}{more}): ignored",)


def refusal(question: Question, reason: str) -> Answer:
    """``question`` not answered, and why: never a verdict."""
    return Answer(question.name, question.kind, refusal=reason)


def _probability(what: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Unusable(f"{what} is not a number")
    number = float(value)
    if not math.isfinite(number):
        raise Unusable(f"{what} is {number}")
    if not 0.0 <= number <= 1.0:
        raise Unusable(f"{what} is {number:g}, outside [0, 1]")
    return number


def _confidence(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Unusable("the confidence is not a number")
    if not math.isfinite(value):
        raise Unusable(f"the confidence is {float(value)}")
    return float(value)
