"""One label value as people write it (true, "yes", "pass", 3, "0.7"), read and checked."""

from __future__ import annotations

import math
import re
from typing import Final, NamedTuple

from veracity._pickled import PickledWhole
from veracity.dataset.fields import a_json_type
from veracity.labels.scale import LabelKind, Scale, number_text

_TRUE: Final = frozenset(
    {"true", "yes", "y", "pass", "passed", "correct", "faithful", "supported", "grounded"}
    | {"relevant"}
)
_FALSE: Final = frozenset(
    {"false", "no", "n", "fail", "failed", "incorrect", "wrong", "unfaithful", "not_faithful"}
    | {"not_supported", "unsupported", "ungrounded", "not_grounded", "irrelevant", "not_relevant"}
)
_NUMBER: Final = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,3})?")
_WORD_LIMIT = 40  # longer text is no label word or number; not worth lower-casing
_SHOWN = 60

EXPECTED: Final = "true/false, yes/no, pass/fail, a number, or empty for no label"


class LabelProblem(Exception):
    """Why a row's label cannot be used; the message is shown to the user as is."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class GradeWithoutScale(PickledWhole, LabelProblem):
    """A number outside 0–1 labelling a target whose scale nobody declared: a grade, most
    likely, so none of that target's numbers can be read as yes/no (a grade 1 would count
    as good)."""

    def __init__(self, message: str, target: str, value: float) -> None:
        super().__init__(message)
        self.target, self.value = target, value


class NotALabel(Exception):
    """A value that reads as no label word or number."""


class Vote(NamedTuple):  # a tuple, not a frozen dataclass: one is made per label read
    """A label value; ``numeric`` when it was written as a number (a grade can be only that)."""

    value: float
    numeric: bool


def show(value: object) -> str:
    """A value for a message: a short repr, control characters escaped, never raw."""
    if isinstance(value, str):
        return repr(value[:_SHOWN]) + ("…" if len(value) > _SHOWN else "")
    if isinstance(value, bool) or value is None:
        return a_json_type(value) if value is None else str(value).lower()
    if isinstance(value, int | float):
        try:
            text = number_text(value) if isinstance(value, float) else str(value)
        except ValueError:  # Python refuses to print more than 4,300 digits
            return f"an integer of {int(value).bit_length()} bits"
        return text[:_SHOWN] + ("…" if len(text) > _SHOWN else "")
    return a_json_type(value)  # an array, an object: never repr'd (it may be huge or deep)


def read_label(raw: object) -> Vote | None:
    """The label ``raw`` gives, ``None`` for no label (null, empty); else ``NotALabel``."""
    if raw is None:
        return None
    if isinstance(raw, bool):
        return Vote(float(raw), numeric=False)
    if isinstance(raw, int | float):
        try:
            value = float(raw)
        except OverflowError:
            raise NotALabel from None
        if not math.isfinite(value):
            raise NotALabel
        return Vote(value, numeric=True)
    if not isinstance(raw, str):
        raise NotALabel
    text = raw.strip()
    if not text:
        return None
    if len(text) > _WORD_LIMIT:
        raise NotALabel
    word = text.lower().replace(" ", "_").replace("-", "_")
    if word in _TRUE:
        return Vote(1.0, numeric=False)
    if word in _FALSE:
        return Vote(0.0, numeric=False)
    if _NUMBER.fullmatch(text):
        return read_label(float(text))
    raise NotALabel


def unit_label(raw: object) -> bool | None:
    """Whether ``raw`` reads as a binary or 0–1 label (``None``: it is empty). Used to
    report a ``label`` object's key that names no metric but holds a label."""
    try:
        vote = read_label(raw)
    except NotALabel:
        return False
    return None if vote is None else 0.0 <= vote.value <= 1.0


def grade_hint(target: str, value: float, lowest: float | None = None) -> str:
    """``--scale target=1:4``, with ends that fit ``value`` (and ``lowest``, the smallest
    value seen, where known)."""
    lowest = value if lowest is None else min(lowest, value)
    if max(abs(value), abs(lowest)) >= 1e6:
        return f"--scale {target}=1:4"  # no absurd hint for an absurd value
    low = 1 if lowest >= 1 else math.floor(lowest)
    high = max(4, math.ceil(value))
    return f"--scale {target}={low}:{high}"


def checked_label(field: str, raw: object, target: str, scale: Scale | None) -> float | None:
    """The label ``raw`` (from ``field``) gives ``target``, checked against its declared
    ``scale``, or against 0–1 when there is none; ``LabelProblem`` if it is no label."""
    try:
        vote = read_label(raw)
    except NotALabel:
        problem = f"is not a label (expected {EXPECTED})"
    else:
        if vote is None:
            return None
        value = vote.value
        if scale is None:
            if 0.0 <= value <= 1.0:
                return value
            problem = f"is a grade: declare its scale, e.g. {grade_hint(target, value)}"
            raise GradeWithoutScale(f"field {show(field)}: {show(raw)} {problem}", target, value)
        if scale.kind is LabelKind.GRADE and not vote.numeric:
            problem = f"is not a grade on {target}'s scale ({scale.describe()})"
        elif scale.kind is LabelKind.GRADE and not scale.is_grade(value):
            problem = f"is not a whole grade on {target}'s scale ({scale.describe()})"
        elif not scale.admits(value):
            problem = f"is outside {target}'s scale ({scale.describe()})"
        else:
            return value
    # Built only for a bad value: this runs for every label of a large file.
    raise LabelProblem(f"field {show(field)}: {show(raw)} {problem}")
