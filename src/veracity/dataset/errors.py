"""Errors raised or reported while reading a dataset file."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RowError:
    """One bad row: reported in place of its sample(s), the rest of the file still loads.

    ``line`` is the 1-based physical line the row starts on (JSONL and CSV); ``item`` is
    the 1-based position of the row in the JSON array (JSON files). ``path`` is the path
    as the caller gave it.
    """

    path: str
    line: int | None
    item: int | None
    message: str

    @property
    def location(self) -> str:
        """Where the row is, e.g. ``data.jsonl:17`` or ``data.json item 4``."""
        if self.line is not None:
            return f"{self.path}:{self.line}"
        if self.item is not None:
            return f"{self.path} item {self.item}"
        return self.path

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


class DatasetError(Exception):
    """A problem with the whole file: it is missing, of an unknown kind, or unreadable."""
