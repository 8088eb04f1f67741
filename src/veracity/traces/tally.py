"""What reading a trace source left out or doubted: counted by reason, and where (the first
few places of each reason), so that nothing is passed over in silence."""

from __future__ import annotations

import warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from veracity.traces.otlp import UNREADABLE_LINE

__all__ = ["PLACES_KEPT", "TraceReadWarning", "TraceTally"]

PLACES_KEPT = 5  # places named per reason: enough to find them, never a file's worth


class TraceReadWarning(UserWarning):
    """Traces whose answer was doubted or that could not be read (the Python API's word;
    the CLI says it on the console)."""


@dataclass
class TraceTally:
    """Traces skipped and traces read with a doubt, by reason, with where they are.

    Mutable on purpose: the readers add to it as they stream a source."""

    skipped: Counter[str] = field(default_factory=Counter)
    doubted: Counter[str] = field(default_factory=Counter)
    places: dict[str, list[str]] = field(default_factory=dict)

    @property
    def traces_skipped(self) -> int:
        """The traces skipped (a line that could not be read is no trace)."""
        return sum(self.skipped.values()) - self.skipped[UNREADABLE_LINE]

    def skip(self, reason: str, where: str | None = None) -> None:
        self.skipped[reason] += 1
        self._place(reason, where)

    def doubt(self, reason: str, where: str) -> None:
        self.doubted[reason] += 1
        self._place(reason, where)

    def _place(self, reason: str, where: str | None) -> None:
        kept = self.places.setdefault(reason, [])
        if where is not None and len(kept) < PLACES_KEPT:
            kept.append(where)

    def where(self, reason: str) -> str:
        """The places of ``reason``'s traces, as a phrase (``""`` when none is known)."""
        return "; ".join(self.named(reason))

    def named(self, reason: str) -> list[str]:
        """The places of ``reason``'s traces kept, and how many more there are."""
        kept = list(self.places.get(reason) or [])
        counted = self.skipped[reason] + self.doubted[reason]
        if kept and counted > len(kept):
            kept.append(f"and {counted - len(kept)} more")
        return kept

    def as_json(self, samples: int) -> dict[str, Any]:
        """The counts, for a run's manifest, with the ``samples`` read."""
        return {
            "traces": samples + self.traces_skipped,
            "samples": samples,
            "skipped": dict(self.skipped.most_common()),
            "doubted": dict(self.doubted.most_common()),
        }

    def warn(self, doubtful: frozenset[str]) -> None:
        """A :class:`TraceReadWarning` naming the doubted traces and those skipped for one
        of the ``doubtful`` reasons, with where; nothing where there are none."""
        reasons = [*self.doubted, *(r for r in self.skipped if r in doubtful)]
        if reasons:
            said = "; ".join(
                f"{self.skipped[r] + self.doubted[r]} {r} ({self.where(r)})" for r in reasons
            )
            warnings.warn(f"reading traces: {said}", TraceReadWarning, stacklevel=3)
