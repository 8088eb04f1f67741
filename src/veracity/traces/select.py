"""Which traces to evaluate: ``--filter`` conditions on their spans.

A condition is ``KEY=PATTERN`` or ``KEY!=PATTERN``; the pattern is a shell-style glob
(``*``, ``?``, ``[…]``) matched against the whole value, case-sensitively. ``KEY`` is a
span attribute, or ``service.name`` (the resource's service), ``project`` (the project the
trace is filed under: OpenInference's ``openinference.project.name``, Phoenix's project)
or ``name`` (the span's name).
A trace passes ``KEY=PATTERN`` when one of its spans has a matching value, and
``KEY!=PATTERN`` when none has; it is evaluated when it passes every condition.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from veracity.traces.otlp import Span

__all__ = ["FILTERED_OUT", "TraceFilter"]

FILTERED_OUT = "left out by --filter"
_CONDITION = re.compile(r"^\s*(?P<key>[^=!\s][^=!]*?)\s*(?P<op>!?=)\s*(?P<pattern>.*?)\s*$")


@dataclass(frozen=True, slots=True)
class _Condition:
    key: str
    pattern: str
    negated: bool

    def holds(self, spans: Sequence[Span]) -> bool:
        found = any(fnmatchcase(value, self.pattern) for value in _values(spans, self.key))
        return found != self.negated


def _values(spans: Sequence[Span], key: str) -> list[str]:
    def of(span: Span) -> Any:
        if key == "service.name":
            return span.service
        if key == "project":
            return span.project
        if key == "name":
            return span.name
        return span.attributes.get(key)

    return [str(v) for v in map(of, spans) if isinstance(v, str | int | float | bool)]


@dataclass(frozen=True, slots=True)
class TraceFilter:
    """Conditions every evaluated trace meets (none: every trace)."""

    conditions: tuple[_Condition, ...] = ()

    @classmethod
    def parse(cls, given: Sequence[str]) -> TraceFilter:
        """Conditions as written on the command line; a ValueError names a bad one."""
        conditions = []
        for text in given:
            m = _CONDITION.match(text)
            if m is None:
                raise ValueError(
                    f"--filter {text!r}: expected KEY=PATTERN or KEY!=PATTERN "
                    "(e.g. service.name=rag-prod, or llm.model_name!=gpt-3*)"
                )
            conditions.append(_Condition(m["key"], m["pattern"], m["op"] == "!="))
        return cls(tuple(conditions))

    def keeps(self, spans: Sequence[Span]) -> bool:
        return all(condition.holds(spans) for condition in self.conditions)
