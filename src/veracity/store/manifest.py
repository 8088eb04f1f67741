"""``run.json`` as a typed model: checked when written, read back leniently.

A run directory written by an earlier version, or edited by hand, still loads: a field of
the wrong type is left out with one warning naming it, and fields this version does not
know are kept as they are (``extra="allow"``), so a rewrite never loses them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError

from veracity.store.reading import read_json_object, warn_once

__all__ = ["Attempt", "DatasetInfo", "JudgeInfo", "Manifest", "checked_manifest", "read_manifest"]


class _Part(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow")


class JudgeInfo(_Part):
    """The judge as the run described it; its other fields (timeouts, modes…) as extras."""

    name: str | None = None
    model: str | None = None
    prompts: dict[str, str] | None = None


class DatasetInfo(_Part):
    path: str | None = None  # None: samples given in Python
    sha256: str | None = None
    bytes: StrictInt | None = None  # lets a later run tell appended rows from a change


class Attempt(_Part):
    """One attempt at the run: when it started and ended, how, and what it added."""

    started_at: str | None = None
    updated_at: str | None = None
    finished_at: str | None = None
    status: str | None = None
    error: str | None = None
    veracity_version: str | None = None
    metrics: list[str] = Field(default_factory=list)
    iterations: StrictInt | None = None
    results_resumed: StrictInt = 0
    results_new: StrictInt = 0


class Manifest(_Part):
    """What ran, on what, with which prompts and settings, and how it went."""

    veracity_version: str | None = None
    judge: JudgeInfo = JudgeInfo()
    dataset: DatasetInfo = DatasetInfo()
    settings: dict[str, Any] = Field(default_factory=dict)
    metrics: list[str] = Field(default_factory=list)
    status: str | None = None
    error: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    bad_rows: StrictInt = 0
    results: StrictInt | None = None
    attempts: list[Attempt] = Field(default_factory=list)

    @classmethod
    def lenient(cls, loaded: Mapping[str, Any], where: Path | str) -> Manifest:
        """``loaded`` read without its top-level fields of a wrong type (one warning names
        them, and ``where`` the file)."""
        try:
            return cls.model_validate(loaded)
        except ValidationError as exc:
            failing = {str(error["loc"][0]) for error in exc.errors()}
        wrong = [name for name in loaded if name in failing]
        warn_once(f"{where}: ignored field(s) of a wrong type: {', '.join(wrong)}")
        return cls.model_validate({k: v for k, v in loaded.items() if k not in failing})

    def as_dict(self) -> dict[str, Any]:
        """The fields read or set, as JSON values (what a rewrite keeps)."""
        return self.model_dump(mode="json", exclude_unset=True)

    @property
    def last_attempt(self) -> Attempt | None:
        return self.attempts[-1] if self.attempts else None


def checked_manifest(manifest: Mapping[str, Any]) -> Mapping[str, Any]:
    """``manifest`` if it is a manifest: what veracity writes is what it reads back."""
    Manifest.model_validate(manifest)
    return manifest


def read_manifest(path: Path) -> Manifest:
    """The manifest in the file ``path`` (``run.json``), read leniently; empty when it is
    missing or not a JSON object."""
    loaded = read_json_object(path)
    return Manifest() if loaded is None else Manifest.lenient(loaded, path)
