"""A run directory: results committed to SQLite as they exist, files exported from it.

``veracity.sqlite3`` holds every finished (sample, system, metric, iteration) result, each
committed the moment it exists; ``results.jsonl`` and ``summary.json`` are regenerated
from it (written atomically), so they always agree with it and a run killed at any
instant leaves no corrupt file. A lock file stops two runs writing one directory.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from veracity.dataset.normalize import describe_validation_error
from veracity.dataset.raw import decode_error_message, json_error_message
from veracity.store.files import dumps, write_json_atomic
from veracity.types import ResultRecord

MANIFEST = "run.json"
RESULTS = "results.jsonl"
SUMMARY = "summary.json"
DATABASE = "veracity.sqlite3"
LOCK = ".lock"
RECORD_KEY = ("sample_id", "system", "question_type", "metric", "iteration")
# A run may be resumed only by a run of the same data and judge: anything else would mix
# results that do not belong together.
MUST_MATCH = (("dataset", "sha256"), ("judge", "name"), ("judge", "prompts"))

SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    sample_id TEXT NOT NULL,
    system TEXT NOT NULL,
    metric TEXT NOT NULL,
    iteration INTEGER NOT NULL,
    position INTEGER NOT NULL,
    metric_order INTEGER NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (sample_id, system, metric, iteration)
)
"""


# What a full disk, a read-only one or a missing permission raises, from files and SQLite
# (not sqlite3.DatabaseError as such: that is a corrupt file, not a failing disk).
WRITE_ERRORS = (OSError, sqlite3.OperationalError)


class RunDirectoryError(Exception):
    pass


def _reason(exc: Exception) -> str:
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


def _make_directory(path: Path) -> None:
    """Create ``path`` (and its parents); fail naming the file that stands in the way."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except WRITE_ERRORS as exc:
        blocking = next((p for p in (path, *path.parents) if p.exists() and not p.is_dir()), None)
        problem = f"{blocking} is a file, not a directory" if blocking else _reason(exc)
        raise RunDirectoryError(f"cannot use {path} as the run directory: {problem}") from exc


class RunDirectory:
    """Owns the files of one run while it is open (and holds its lock)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None
        self._lock: IO[str] | None = None
        self._manifest: dict[str, Any] = {}
        self.resumed_results = 0

    def open(self, manifest: Mapping[str, Any]) -> None:
        """Lock the directory and open its store; an earlier run of the same dataset and
        judge here is resumed, anything else is refused."""
        _make_directory(self.path)
        try:
            self._open(manifest)
        except WRITE_ERRORS as exc:
            self.close()
            raise RunDirectoryError(
                f"cannot use {self.path} as the run directory: {_reason(exc)}"
            ) from exc

    def _open(self, manifest: Mapping[str, Any]) -> None:
        self._lock = (self.path / LOCK).open("w")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock.close()
            self._lock = None
            raise RunDirectoryError(f"another veracity run is writing {self.path}") from None
        previous = self._previous_manifest()
        self._db = sqlite3.connect(self.path / DATABASE, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(SCHEMA)
        (self.resumed_results,) = self._db.execute("SELECT COUNT(*) FROM results").fetchone()
        if self.resumed_results and previous is not None:
            _check_same_run(self.path, previous, manifest)
        elif self.resumed_results == 0 and (self.path / RESULTS).exists():
            self.close()
            raise RunDirectoryError(
                f"{self.path} holds results of an older format or another tool; "
                "choose a new --out directory"
            )
        self._manifest = {**manifest, "resumed_results": self.resumed_results}
        if previous is not None:
            self._manifest["started_at"] = previous.get("started_at", manifest.get("started_at"))
        write_json_atomic(self.path / MANIFEST, self._manifest)

    def _previous_manifest(self) -> dict[str, Any] | None:
        try:
            loaded = json.loads((self.path / MANIFEST).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except ValueError as exc:
            raise RunDirectoryError(f"{self.path / MANIFEST} is not valid JSON: {exc}") from exc
        return loaded if isinstance(loaded, dict) else None

    def _database(self) -> sqlite3.Connection:
        if self._db is None:
            raise RunDirectoryError("the run directory is not open")
        return self._db

    def done(self, sample_id: str, system: str | None, iteration: int) -> set[str]:
        """The metrics already finished for this sample and iteration."""
        rows = self._database().execute(
            "SELECT metric FROM results WHERE sample_id = ? AND system = ? AND iteration = ?",
            (sample_id, system or "", iteration),
        )
        return {metric for (metric,) in rows}

    def add(self, record: ResultRecord, position: int, metric_order: int) -> None:
        """Commit one result (autocommit: it is durable when this returns)."""
        try:
            self._database().execute(
                "INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    record.sample_id,
                    record.system or "",
                    record.metric,
                    record.iteration,
                    position,
                    metric_order,
                    dumps(_keyed(record)),
                ),
            )
        except WRITE_ERRORS as exc:
            # SQLite rolled this one insert back: every result committed before it is kept.
            raise RunDirectoryError(
                f"cannot write {self.path / DATABASE}: {_reason(exc)}; every result "
                "finished before is kept there: free some space (or make it writable) and run "
                "the same command again to go on"
            ) from exc

    def records(self) -> Iterator[ResultRecord]:
        """Every result, in dataset order, then the run's metric order, then iteration."""
        rows = self._database().execute(
            "SELECT record FROM results ORDER BY position, metric_order, iteration"
        )
        for (text,) in rows:
            yield ResultRecord.model_validate_json(text)

    def export(self, summary: Mapping[str, Any], **manifest_fields: Any) -> None:
        """Regenerate ``results.jsonl`` and ``summary.json`` and update the manifest."""
        try:
            self._export(summary, manifest_fields)
        except WRITE_ERRORS as exc:
            # Each file is replaced whole or not at all, and the store holds every result.
            raise RunDirectoryError(
                f"cannot write the files of {self.path}: {_reason(exc)}; every result is "
                f"kept in {self.path / DATABASE}: free some space (or make it writable) and "
                "run the same command again to write them"
            ) from exc

    def _export(self, summary: Mapping[str, Any], manifest_fields: Mapping[str, Any]) -> None:
        fd, tmp = tempfile.mkstemp(dir=self.path, prefix=f".{RESULTS}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                rows = self._database().execute(
                    "SELECT record FROM results ORDER BY position, metric_order, iteration"
                )
                for (text,) in rows:
                    handle.write(text + "\n")
                handle.flush()
                os.fsync(handle.fileno())
            Path(tmp).replace(self.path / RESULTS)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        write_json_atomic(self.path / SUMMARY, dict(summary))
        self._manifest.update(manifest_fields)
        write_json_atomic(self.path / MANIFEST, self._manifest)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        if self._lock is not None:
            fcntl.flock(self._lock, fcntl.LOCK_UN)
            self._lock.close()
            self._lock = None


def _keyed(record: ResultRecord) -> dict[str, Any]:
    row = record.model_dump(mode="json")
    # The key first, so that a line read by eye starts with what it is about.
    return {name: row.pop(name) for name in RECORD_KEY} | row


def _check_same_run(path: Path, previous: Mapping[str, Any], current: Mapping[str, Any]) -> None:
    for section, field in MUST_MATCH:
        before = (previous.get(section) or {}).get(field)
        now = (current.get(section) or {}).get(field)
        if before != now:
            raise RunDirectoryError(
                f"{path} holds a run with a different {section} {field} "
                f"({before!r}, now {now!r}); resume it with the same inputs or choose a new "
                "--out directory"
            )


class ResultsFileError(ValueError):
    """A line of ``results.jsonl`` that is not a result: ``file:line: problem``."""


def read_results(path: Path) -> Iterator[ResultRecord]:
    """The records of a run directory's ``results.jsonl``, in order; a line that is not a
    result raises :class:`ResultsFileError` naming the file and the line."""
    file = path / RESULTS
    with file.open("rb") as handle:  # bytes: even an undecodable line is named by number
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield ResultRecord.model_validate(json.loads(line))
            except UnicodeDecodeError as exc:
                raise ResultsFileError(f"{file}:{number}: {decode_error_message(exc)}") from None
            except ValidationError as exc:
                raise ResultsFileError(
                    f"{file}:{number}: {describe_validation_error(exc)}"
                ) from None
            except ValueError as exc:
                raise ResultsFileError(f"{file}:{number}: {json_error_message(exc)}") from None
