"""Result types of the judge-reply parsers: frozen, plain data, no behaviour."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from veracity.types.results import Verdict

JsonMethod = Literal["strict", "fenced", "embedded", "repaired"]
FailureKind = Literal["unparseable", "refusal", "schema", "truncated"]


@dataclass(frozen=True)
class JsonFound:
    """A JSON value found in a reply, and how it was found."""

    value: object
    method: JsonMethod
    cut: bool = False  # repaired by closing what a reply cut short left open


@dataclass(frozen=True)
class ParseFailure:
    """Why a reply could not be read; ``message`` is fit to show the judge in a re-ask."""

    kind: FailureKind
    message: str


@dataclass(frozen=True)
class RawVerdict:
    """One verdict as the judge wrote it, with its label normalised.

    ``claim`` is the statement text the judge repeated, or ``None`` when the reply gave
    only labels or the claim's number (``number``, 1-based); those are matched to claims
    by number, then by position.
    """

    claim: str | None
    verdict: Verdict
    reason: str = ""
    evidence: str = ""
    raw_label: str = ""
    # P(supported), where the judge's token log-probabilities give it.
    p_supported: float | None = None
    number: int | None = None


@dataclass(frozen=True)
class VerdictMatch:
    """Verdicts assigned to claims: by claim index, with the leftovers on both sides."""

    assigned: Mapping[int, RawVerdict]
    missing: tuple[int, ...]
    extras: tuple[RawVerdict, ...]
    notes: tuple[str, ...] = field(default=())
