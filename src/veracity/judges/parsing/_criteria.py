"""Named scores (G-Eval criteria, rubric dimensions) from JSON of any shape, or text lines."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, TypeVar

from pydantic import BeforeValidator, Field, InstanceOf

from veracity.judges.parsing._coerce import Number, compact, read_number
from veracity.judges.parsing._text import REASON_KEYS, as_text, collapse, preview
from veracity.judges.parsing.outcomes import ParseFailure
from veracity.judges.parsing.parsed import ParsedValue
from veracity.judges.parsing.reader import Reading, ReplyModel, synonyms, written

M = TypeVar("M", bound=ReplyModel)
T = TypeVar("T")


class _Criterion(ReplyModel):
    """One criterion written as an object (its ``name`` only inside an array)."""

    name: Annotated[
        str,
        BeforeValidator(as_text),
        Field(validation_alias=synonyms("dimension criterion name axis aspect metric")),
    ] = ""
    score: object = written("score rating value grade points")
    # Any reason key, and two more judges use for a score's.
    reasoning: Annotated[
        str,
        BeforeValidator(as_text),
        Field(validation_alias=synonyms(f"reasoning {REASON_KEYS} comment analysis")),
    ] = ""


class _Container(ReplyModel):
    """The key the criteria may sit under."""

    scores: object = written(
        "scores criteria dimensions results evaluation evaluations grades ratings"
    )


_REASONING_SUFFIXES = tuple(compact(k) for k in _Criterion.keys("reasoning"))
_SCORE_SUFFIXES = tuple(compact(k) for k in _Criterion.keys("score"))
_REASONING_BUCKETS = ("reasoning", "reasons", "explanations", "rationale", "justifications")


@dataclass
class RawCriterion:
    """A score as written (``None`` if absent) and its reasoning."""

    score: object = None
    reasoning: str = ""


@dataclass
class Criteria:
    """Criteria found by canonical name, and the keys that named none."""

    found: dict[str, RawCriterion] = field(default_factory=dict)
    unknown: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)

    def get(self, name: str) -> RawCriterion:
        return self.found.setdefault(name, RawCriterion())

    def put(self, name: str, score: object, reasoning: str) -> None:
        item = self.get(name)
        if score is not None:
            if item.score is not None:
                self.duplicates.append(name)
            else:
                item.score = score
        if reasoning and not item.reasoning:
            item.reasoning = reasoning


def _strip_suffix(key: str, suffixes: tuple[str, ...], aliases: Mapping[str, str]) -> str | None:
    for suffix in suffixes:
        if key.endswith(suffix) and key[: -len(suffix)] in aliases:
            return aliases[key[: -len(suffix)]]
    return None


def _item(obj: dict[str, object], aliases: Mapping[str, str], out: Criteria) -> None:
    read = _Criterion.model_validate(obj)
    canonical = aliases.get(compact(read.name))
    if canonical is None:
        out.unknown.append(read.name or "an item without a name")
        return
    out.put(canonical, read.score, read.reasoning)


def _entry(key: str, value: object, aliases: Mapping[str, str], out: Criteria) -> None:
    name = compact(key)
    if name in aliases:
        if isinstance(value, dict):
            read = _Criterion.model_validate(value)
            out.put(aliases[name], read.score, read.reasoning)
        else:
            out.put(aliases[name], value, "")
    elif (target := _strip_suffix(name, _REASONING_SUFFIXES, aliases)) is not None:
        out.put(target, None, as_text(value))
    elif (target := _strip_suffix(name, _SCORE_SUFFIXES, aliases)) is not None:
        out.put(target, value, "")
    elif name in _REASONING_BUCKETS and isinstance(value, dict):
        for sub, text in value.items():
            if compact(sub) in aliases:
                out.put(aliases[compact(sub)], None, as_text(text))
    else:
        out.unknown.append(key)


def read_criteria(value: object, aliases: Mapping[str, str]) -> Criteria | None:
    """Criteria from ``[{"dimension": n, "score": s, "reasoning": r}]``, ``{n: {...}}``,
    ``{n: s, "n_reasoning": r}`` or any of these under a ``scores``/``criteria``/…
    key; ``aliases`` maps :func:`compact` names to canonical ones. ``None`` if the value
    has no usable shape."""
    if isinstance(value, dict):
        container = _Container.given("scores", value)
        if (
            container is not None
            and isinstance(container[1], list | dict)
            and compact(container[0]) not in aliases
        ):
            value = container[1]
    out = Criteria()
    if (
        isinstance(value, dict)
        and _Criterion.given("name", value)
        and _Criterion.given("score", value)
    ):
        value = [value]
    if isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                _item(item, aliases, out)
            else:
                out.unknown.append(f"a non-object item {as_text(item)!r}")
        return out
    if isinstance(value, dict) and value:
        for key, v in value.items():
            _entry(str(key), v, aliases, out)
        return out
    return None


_NUM = r"[-+]?\d+(?:\.\d+)?(?:\s*(?:/|out\s+of)\s*\d+(?:\.\d+)?)?%?"
_LINE = re.compile(
    r"^[\W_]*(?P<name>[A-Za-z][A-Za-z _\-]{0,40}?)[\s*_]*(?:\((?:[^()]{0,20})\))?\s*"
    rf"[:=\-\u2013\u2014]\s*[*_]*\s*(?P<num>{_NUM})[*_]*(?P<rest>.*)$",
)
_HEADER = re.compile(r"^[\W_]*(?P<name>[A-Za-z][A-Za-z _\-]{0,40}?)[\W_]*$")
_TRAIL = " \t*_.,;:-\u2013\u2014()"
_REASONING_LABEL = re.compile(r"^[\W_]*(?:reasoning|reason|explanation)\s*[:=]\s*", re.I)


def read_criteria_lines(text: str, aliases: Mapping[str, str]) -> Criteria | None:
    """Criteria from lines such as ``Correctness: 80 - why`` or a ``## Faithfulness``
    header followed by ``Reasoning: …`` and ``Score: 4/5`` lines; ``None`` if none."""
    out = Criteria()
    current: str | None = None
    for line in text.splitlines():
        if not line.strip():
            continue
        m = _LINE.match(line)
        name = compact(m.group("name")) if m else ""
        if m is not None and name in aliases:
            current = aliases[name]
            out.put(current, m.group("num"), collapse(m.group("rest")).strip(_TRAIL))
        elif m is not None and name in _SCORE_SUFFIXES and current is not None:
            out.put(current, m.group("num"), "")
        elif m is not None:
            out.unknown.append(m.group("name").strip())
            current = None
        elif (h := _HEADER.match(line)) is not None and compact(h.group("name")) in aliases:
            current = aliases[compact(h.group("name"))]
            out.get(current)
        elif current is not None:
            extra = _REASONING_LABEL.sub("", line)
            item = out.get(current)
            item.reasoning = collapse(f"{item.reasoning} {extra.strip(_TRAIL)}")
    return out if any(c.score is not None for c in out.found.values()) else None


def _number(raw: object) -> Number:
    number = read_number(raw)
    if number is None:
        raise ValueError(f"the score {preview(as_text(raw))} is not a number")
    return number


class WrittenScore(ReplyModel):
    """A criterion's score as the judge wrote it, and its reasoning."""

    score: Annotated[InstanceOf[Number], BeforeValidator(_number)]
    reasoning: str = ""


def criteria_reading(
    model: type[M],
    value: Callable[[M], T],
    expected: str,
    names: Sequence[str],
    unknown: Callable[[str], str],
    *,
    aliases: Mapping[str, str] | None = None,
    context: Mapping[str, object] | None = None,
) -> Reading[M, T]:
    """The :class:`~veracity.judges.parsing.reader.Reading` of named scores: JSON of any
    shape (:func:`read_criteria`) or text lines (:func:`read_criteria_lines`), read as one
    object per name in ``names`` (an empty one for a name not found, so that a missing
    score names its criterion); ``aliases`` map other names (in :func:`compact` form) to
    them, and ``unknown`` words the note on a key that names none."""
    aliases = aliases or {compact(name): name for name in names}

    def data(criteria: Criteria, notes: list[str]) -> dict[str, object]:
        notes.extend(unknown(key) for key in criteria.unknown)
        notes.extend(f"kept the first of two scores for {d}" for d in criteria.duplicates)
        found: dict[str, object] = {}
        for name in names:
            item = criteria.found.get(name)
            written = {} if item is None or item.score is None else {"score": item.score}
            found[name] = written | ({"reasoning": item.reasoning} if item else {})
        return found

    def shape(reply: object, notes: list[str]) -> object:
        criteria = read_criteria(reply, aliases)
        return reply if criteria is None else data(criteria, notes)

    def text(reply: str) -> ParsedValue[T] | ParseFailure | None:
        criteria = read_criteria_lines(reply, aliases)
        if criteria is None:
            return None
        notes = ["read the scores from text lines, not JSON"]
        return reading.validated(data(criteria, notes), "legacy_lines", notes)

    reading = Reading(model, value, expected, shape, text, dict(context or {}))
    return reading
