"""The labels file: one JSON line per answer, appended under a file lock and synced to
disk before the page is told, so that neither a closed page nor a killed server loses a
label, and two annotators writing at once are both kept.

An undo appends a retraction (``"retract": true``) of the annotator's last standing
label; the labels reader drops the withdrawn label, so the last word of each annotator on
each item is what ``agree`` and ``calibrate`` read.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from filelock import FileLock

Key = tuple[str, str | None]


@dataclass(frozen=True, slots=True)
class Standing:
    """An annotator's label that stands (not withdrawn)."""

    key: Key
    value: float
    order: str | None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class LabelFile:
    """Appends labels to ``path`` and reads back what stands, per annotator."""

    def __init__(self, path: Path, metric: str = "faithfulness") -> None:
        self.path = path
        self.metric = metric
        self._lock = FileLock(str(path) + ".lock")

    def _write(self, row: dict[str, Any]) -> None:
        """One line, on disk before returning (the caller holds the lock)."""
        with self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            out.flush()
            os.fsync(out.fileno())

    def _retraction(self, last: Standing, annotator: str) -> dict[str, Any]:
        return {"id": last.key[0], "system": last.key[1], "metric": self.metric,
                "annotator": annotator, "retract": True, "timestamp": _now(),
                "order": last.order}  # fmt: skip

    def label(
        self,
        key: Key,
        annotator: str,
        value: float,
        *,
        order: str,
        note: str = "",
        claims: dict[str, str] | None = None,
    ) -> None:
        """Append one answer: ``value`` 1 (faithful) or 0. A new answer to an item the
        annotator answered before withdraws the old one first (its last word counts)."""
        row: dict[str, Any] = {"id": key[0], "system": key[1], "metric": self.metric,
                               "value": value, "annotator": annotator, "note": note,
                               "timestamp": _now(), "order": order}  # fmt: skip
        if claims:
            row["claims"] = claims
        with self._lock:
            earlier = next((s for s in self.standing(annotator) if s.key == key), None)
            if earlier is not None:
                self._write(self._retraction(earlier, annotator))
            self._write(row)

    def undo(self, annotator: str) -> Standing | None:
        """Withdraw the annotator's last standing answer; the item it was, or ``None``."""
        with self._lock:
            standing = self.standing(annotator)
            if not standing:
                return None
            self._write(self._retraction(standing[-1], annotator))
            return standing[-1]

    def rows(self) -> list[dict[str, Any]]:
        """Every row of this metric (a torn last line, from a crash mid-write, is passed)."""
        if not self.path.is_file():
            return []
        found = []
        with self.path.open(encoding="utf-8") as lines:
            for line in lines:
                try:
                    row = json.loads(line)
                except ValueError:
                    continue
                if isinstance(row, dict) and row.get("metric") == self.metric:
                    found.append(row)
        return found

    def standing(self, annotator: str) -> list[Standing]:
        """The annotator's answers that stand, oldest first."""
        kept: dict[Key, Standing] = {}
        for row in self.rows():
            if row.get("annotator") != annotator or not isinstance(row.get("id"), str):
                continue
            key = (row["id"], row.get("system"))
            if row.get("retract") is True:
                kept.pop(key, None)
                continue
            value = row.get("value")
            if isinstance(value, int | float):
                kept.pop(key, None)  # re-inserted last: its place is its newest answer
                kept[key] = Standing(key, float(value), row.get("order"))
        return list(kept.values())

    def labelled_by_anyone(self) -> int:
        """Items with at least one standing label, whoever gave it."""
        annotators = {row.get("annotator") for row in self.rows()}
        keys = {s.key for name in annotators if isinstance(name, str) for s in self.standing(name)}
        return len(keys)
