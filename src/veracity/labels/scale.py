"""What a label's numbers mean: a yes/no, a probability, or a grade on a declared scale."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from veracity.labels.names import is_metric_like, target_name

#: The most grades a scale may have (0:1000): weighted κ compares grades on a grid of
#: this size squared.
MAX_GRADES: Final = 1001


class LabelKind(StrEnum):
    BINARY = "binary"
    PROBABILITY = "probability"
    GRADE = "grade"


def number_text(value: float) -> str:
    """``3`` for 3.0, ``2.5`` for 2.5: how a scale's ends and values are written."""
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)


@dataclass(frozen=True, slots=True)
class Scale:
    """A target's scale. Binary and probability labels are 0–1; a grade runs from
    ``low`` to ``high`` (e.g. 1–4) and its upper half counts as positive."""

    kind: LabelKind
    low: float = 0.0
    high: float = 1.0

    def __post_init__(self) -> None:
        if not isinstance(self.kind, LabelKind):
            if self.kind not in tuple(LabelKind):
                kinds = ", ".join(LabelKind)
                raise ValueError(f"a scale's kind must be one of {kinds}, got {self.kind!r}")
            object.__setattr__(self, "kind", LabelKind(self.kind))  # Scale("grade", 1, 4)
        for end in ("low", "high"):
            value = getattr(self, end)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"a scale's {end} end must be a number, got {value!r}")
            object.__setattr__(self, end, float(value))  # Scale(GRADE, 1, 4) holds floats
        if not (math.isfinite(self.low) and math.isfinite(self.high)) or self.low >= self.high:
            raise ValueError(
                f"a scale needs finite ends with low < high, got {self.low}:{self.high}"
            )
        if self.kind is not LabelKind.GRADE and (self.low, self.high) != (0.0, 1.0):
            raise ValueError(f"a {self.kind} scale runs from 0 to 1, not {self.low}:{self.high}")
        if self.kind is LabelKind.GRADE:
            steps = self.high - self.low
            if not steps.is_integer():
                raise ValueError(
                    f"a grade scale's ends must be a whole number of grades apart, "
                    f"got {number_text(self.low)}:{number_text(self.high)}"
                )
            if steps + 1 > MAX_GRADES:
                raise ValueError(
                    f"a grade scale has at most {MAX_GRADES:,} grades, got "
                    f"{number_text(self.low)}:{number_text(self.high)}"
                )

    def positive(self, value: float) -> bool:
        """Whether a value counts as a yes (faithful, correct): the upper half."""
        if self.kind is LabelKind.GRADE:
            return value >= (self.low + self.high) / 2
        return value >= 0.5

    def unit(self, value: float) -> float:
        """The value mapped onto [0, 1], so grades compare with 0–1 scores."""
        return (value - self.low) / (self.high - self.low)

    def describe(self) -> str:
        """``binary``, ``0–1`` or ``grade 1–4``."""
        if self.kind is LabelKind.BINARY:
            return "binary"
        if self.kind is LabelKind.PROBABILITY:
            return "0–1"
        return f"grade {number_text(self.low)}–{number_text(self.high)}"

    def admits(self, value: float) -> bool:
        """Whether ``value`` is a label on this scale (a grade: a whole number of grades
        from the low end)."""
        if self.kind is LabelKind.BINARY:
            return value in (0.0, 1.0)
        if self.kind is LabelKind.GRADE and not self.is_grade(value):
            return False
        return self.low <= value <= self.high

    def is_grade(self, value: float) -> bool:
        """Whether ``value`` is a whole number of grades from the low end (3, not 3.5)."""
        return float(value - self.low).is_integer()


BINARY = Scale(LabelKind.BINARY)
PROBABILITY = Scale(LabelKind.PROBABILITY)

_SPEC_FORMS = "NAME=LOW:HIGH (a grade, e.g. faithfulness=1:4), NAME=binary or NAME=0:1"


def _end(spec: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"--scale {spec!r}: {text.strip()!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"--scale {spec!r}: {text.strip()!r} is not a finite number")
    return value


def parse_scale(spec: str) -> tuple[str, Scale]:
    """One ``--scale`` value: the target it names and its scale; ``ValueError`` if bad."""
    name, equals, form = spec.partition("=")
    name, form = name.strip(), form.strip().lower()
    if not equals or not name or not form:
        raise ValueError(f"--scale {spec!r}: expected {_SPEC_FORMS}")
    if not is_metric_like(name.lower()):
        raise ValueError(
            f"--scale {spec!r}: {name!r} is not a metric name (letters, digits, _ : . -)"
        )
    target = target_name(name)
    if form in (LabelKind.BINARY, "bool", "boolean"):
        return target, BINARY
    if form == LabelKind.PROBABILITY:
        return target, PROBABILITY
    low_text, colon, high_text = form.partition(":")
    if not colon:
        raise ValueError(f"--scale {spec!r}: expected {_SPEC_FORMS}")
    low, high = _end(spec, low_text), _end(spec, high_text)
    if low >= high:
        raise ValueError(f"--scale {spec!r}: the low end must be below the high end")
    if (low, high) == (0.0, 1.0):
        return target, PROBABILITY  # 0:1 is a probability; "binary" says yes/no
    try:
        return target, Scale(LabelKind.GRADE, low, high)
    except ValueError as exc:
        raise ValueError(f"--scale {spec!r}: {exc}") from None


def parse_scales(specs: Sequence[str]) -> dict[str, Scale]:
    """The scales ``--scale`` declares, by target (aliases resolved: faithful → faithfulness).

    A malformed spec, or one target given twice, raises ``ValueError`` naming the spec.
    """
    scales: dict[str, Scale] = {}
    given: dict[str, str] = {}
    for spec in specs:
        target, scale = parse_scale(spec)
        if target in scales:
            raise ValueError(
                f"--scale {spec!r}: {target!r} already has a scale ({given[target]!r})"
            )
        scales[target], given[target] = scale, spec
    return scales
