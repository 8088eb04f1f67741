"""A run directory: results committed to SQLite as they exist, files kept live beside it.

``veracity.sqlite3`` holds every finished (sample, system, metric, iteration) result, each
committed the moment it exists. ``results.jsonl`` is rewritten from it when an attempt
opens the directory, then gets each result appended as it is committed, and is rewritten
in order at the end; ``run.json`` is rewritten at open, every ``LIVE_EVERY_S`` while
results come, and at the end; ``summary.json`` is written at the end (and removed at
open: it would describe the results of an attempt that is over). Whole files are written
atomically, so a run killed at any instant leaves no corrupt file; at worst the last line
of ``results.jsonl`` is cut off (its result is in the store). A lock file stops two runs
writing one directory.
"""

from __future__ import annotations

import contextlib
import copy
import json
import sqlite3
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from filelock import FileLock, Timeout
from pydantic import ValidationError

from veracity.dataset.ids import grew_by_appending
from veracity.store.attempts import COMPLETED, FAILED, begin_attempt, end_attempt, record_progress
from veracity.store.files import dumps, remove_temporaries, write_json_atomic, write_text_atomic
from veracity.store.layout import (
    DATABASE,
    LOCK,
    MANIFEST,
    REPORT,
    RESULTS,
    SUMMARY,
)
from veracity.store.manifest import Manifest, checked_manifest
from veracity.store.reading import RunFileWarning
from veracity.store.sqlite_owner import foreign_database
from veracity.types import ResultRecord, Status

RECORD_KEY = ("sample_id", "system", "question_type", "metric", "iteration")
# A run may be resumed only by a run of the same data and judge: anything else would mix
# results that do not belong together.
MUST_MATCH = (
    ("dataset", "sha256"),
    ("judge", "name"),
    ("judge", "prompts"),
    ("judge", "conversation_prompts"),
)
# Fields an earlier veracity did not record: a run it made is not held to them (its
# prompts about samples with history are then unknown, as they were in its run.json).
RECORDED_SINCE_LATER = frozenset({("judge", "conversation_prompts")})
# run.json shows a running attempt's progress this often at most (an atomic rewrite each).
LIVE_EVERY_S = 1.0

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
# The store's table and its columns, to tell a foreign SQLite file from ours.
TABLES = {
    "results": (
        "sample_id", "system", "metric", "iteration", "position", "metric_order", "record"
    )
}  # fmt: skip
# The files of a run directory that only a run with its store beside them can have written.
RUN_FILES = (RESULTS, MANIFEST, SUMMARY)
IN_ORDER = "SELECT record FROM results ORDER BY position, metric_order, iteration"
# What --retry-errors keeps of a run: every result but a judge error (asked again).
KEPT_ON_RETRY = f"json_extract(record, '$.status') != '{Status.JUDGE_ERROR.value}'"


# What a full disk, a read-only one or a missing permission raises, from files and SQLite
# (not sqlite3.DatabaseError as such: that is a corrupt file, not a failing disk).
WRITE_ERRORS = (OSError, sqlite3.OperationalError)


class RunDirectoryError(Exception):
    pass


def results_done(
    run_dir: Path, metrics: Iterable[str], iterations: int, *, redo_errors: bool = False
) -> int:
    """How many of ``metrics``' results in the first ``iterations`` a run into ``run_dir``
    will skip as done (``judge_error`` ones not, with ``redo_errors``): where a resumed
    run's progress starts. 0 when there is no store or it cannot be read (the run itself
    reports that)."""
    path = run_dir / DATABASE
    if not path.is_file():
        return 0
    names = list(metrics)
    query = (
        f"SELECT COUNT(*) FROM results WHERE metric IN ({', '.join('?' * len(names))}) "
        "AND iteration < ?" + (f" AND {KEPT_ON_RETRY}" if redo_errors else "")
    )
    try:
        with contextlib.closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as db:
            (count,) = db.execute(query, (*names, iterations)).fetchone()
    except sqlite3.Error:
        return 0
    return int(count)


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


def lock_run_directory(path: Path) -> FileLock:
    """The lock of the run directory ``path``, taken: one veracity run writes it at a time.
    A :class:`RunDirectoryError` when another holds it, or it cannot be made."""
    # filelock: an OS lock on every platform (fcntl on POSIX, msvcrt on Windows), freed by
    # the OS when the process dies however it dies.
    lock = FileLock(path / LOCK, thread_local=False)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise RunDirectoryError(f"another veracity run is writing {path}") from None
    except WRITE_ERRORS as exc:
        raise RunDirectoryError(f"cannot use {path} as the run directory: {_reason(exc)}") from exc
    return lock


class RunDirectory:
    """Owns the files of one run while it is open (and holds its lock)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None
        self._lock: FileLock | None = None
        self._appending: IO[str] | None = None
        self._manifest: dict[str, Any] = {}
        self._metric_order: dict[str, int] = {}
        self._stored = 0
        self._shown_at = 0.0
        self.resumed_results = 0

    @property
    def manifest(self) -> dict[str, Any]:
        """``run.json`` as this attempt last wrote it."""
        return copy.deepcopy(self._manifest)

    def open(self, manifest: Mapping[str, Any]) -> None:
        """Lock the directory and open its store; an earlier run of the same dataset and
        judge here is resumed (whenever it stopped), anything else is refused."""
        _make_directory(self.path)
        self._lock = lock_run_directory(self.path)
        try:
            self._open(manifest)
        except WRITE_ERRORS as exc:
            self.close()
            raise RunDirectoryError(
                f"cannot use {self.path} as the run directory: {_reason(exc)}"
            ) from exc
        except BaseException:
            self.close()
            raise

    def _open(self, manifest: Mapping[str, Any]) -> None:
        # Holding the lock, nothing else can be writing these: any temporary is a leftover.
        remove_temporaries(self.path, (MANIFEST, RESULTS, SUMMARY, REPORT))
        previous = self._previous_manifest()
        found = [name for name in RUN_FILES if (self.path / name).exists()]
        if not (self.path / DATABASE).exists() and found:
            raise RunDirectoryError(
                f"{self.path} holds results of an older format or another tool "
                f"({', '.join(found)} without {DATABASE}); choose a new --out directory"
            )
        foreign = foreign_database(self.path / DATABASE, TABLES)
        if foreign is not None:
            raise RunDirectoryError(
                f"{self.path / DATABASE} is not a veracity run store ({foreign}); it was "
                "left as it is: choose a new --out directory"
            )
        with self._store_errors():
            self._db = sqlite3.connect(self.path / DATABASE, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(SCHEMA)
            self._drop_invalid()
            (self._stored,) = self._db.execute("SELECT COUNT(*) FROM results").fetchone()
            held = [metric for (metric,) in self._db.execute("SELECT DISTINCT metric FROM results")]
        self.resumed_results = self._stored
        different = _difference(previous, manifest) if previous is not None else None
        if different and self._stored:
            raise RunDirectoryError(
                f"{self.path} holds a run with a different {different}; resume it with the "
                "same inputs or choose a new --out directory"
            )
        # An earlier run of other inputs that left no result has no history worth keeping.
        self._manifest = begin_attempt(
            None if different else previous, manifest, self._stored, held
        )
        self._metric_order = {name: i for i, name in enumerate(self._manifest["metrics"])}
        (self.path / SUMMARY).unlink(missing_ok=True)
        # Whatever the last attempt appended (maybe not all, maybe a line cut off), the
        # store has it all: start this attempt's file from the store.
        self._write_results()
        self._appending = (self.path / RESULTS).open("a", encoding="utf-8")
        self._show_progress()

    def _drop_invalid(self) -> None:
        """Delete the stored records that are not valid results (a damaged or edited
        store), with a warning: they are judged again, never copied into the files."""
        db = self._database()
        invalid = []
        for rowid, sample_id, system, metric, iteration, text in db.execute(
            "SELECT rowid, sample_id, system, metric, iteration, record FROM results"
        ):
            try:
                ResultRecord.model_validate_json(text)
            except ValidationError:
                invalid.append((rowid, f"{sample_id!r}/{system or '-'}/{metric}/{iteration}"))
        if not invalid:
            return
        db.executemany("DELETE FROM results WHERE rowid = ?", [(rowid,) for rowid, _ in invalid])
        shown = ", ".join(key for _, key in invalid[:5]) + (" …" if len(invalid) > 5 else "")
        warnings.warn(
            RunFileWarning(
                f"{self.path / DATABASE}: {len(invalid)} stored result(s) were not valid "
                f"results and are judged again ({shown})"
            ),
            stacklevel=4,
        )

    def _previous_manifest(self) -> dict[str, Any] | None:
        try:
            loaded = json.loads((self.path / MANIFEST).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except ValueError as exc:
            raise RunDirectoryError(f"{self.path / MANIFEST} is not valid JSON: {exc}") from exc
        if not isinstance(loaded, dict):
            return None
        return Manifest.lenient(loaded, self.path / MANIFEST).as_dict()

    @contextmanager
    def _file_errors(self, what: str) -> Iterator[None]:
        """A file of the directory that cannot be written (a full or read-only disk)."""
        try:
            yield
        except OSError as exc:
            # Each file is replaced whole or appended to, and the store holds every result.
            raise RunDirectoryError(
                f"cannot write {what} {self.path}: {_reason(exc)}; every result is kept in "
                f"{self.path / DATABASE}: free some space (or make it writable) and run the "
                "same command again to go on"
            ) from exc

    @contextmanager
    def _store_errors(self) -> Iterator[None]:
        """A failure of SQLite becomes an error naming the store's file."""
        try:
            yield
        except sqlite3.Error as exc:
            raise _store_error(self.path / DATABASE, exc) from exc

    def _database(self) -> sqlite3.Connection:
        if self._db is None:
            raise RunDirectoryError("the run directory is not open")
        return self._db

    def done(
        self, sample_id: str, system: str | None, iteration: int, *, retry_errors: bool = False
    ) -> set[str]:
        """The metrics already finished for this sample and iteration; with
        ``retry_errors``, a ``judge_error`` result is not finished (it is asked again)."""
        query = "SELECT metric FROM results WHERE sample_id = ? AND system = ? AND iteration = ?"
        parameters: list[str | int] = [sample_id, system or "", iteration]
        if retry_errors:
            query += f" AND {KEPT_ON_RETRY}"
        with self._store_errors():
            return {metric for (metric,) in self._database().execute(query, parameters)}

    def add(self, record: ResultRecord, position: int) -> None:
        """Commit one result (autocommit: it is durable when this returns), then append it
        to ``results.jsonl``; ``run.json`` shows the progress now and then."""
        line = dumps(_keyed(record))
        with self._store_errors():
            self._database().execute(
                "INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    record.sample_id,
                    record.system or "",
                    record.metric,
                    record.iteration,
                    position,
                    self._metric_order[record.metric],
                    line,
                ),
            )
        self._stored += 1
        with self._file_errors("the results of"):
            self._show_live(line)

    def _show_live(self, line: str) -> None:
        if self._appending is not None:
            # Flushed, not synced: a killed process loses nothing written; the store is
            # what survives a power cut, and the file is rebuilt from it on the next open.
            self._appending.write(line + "\n")
            self._appending.flush()
        if time.monotonic() - self._shown_at >= LIVE_EVERY_S:
            self._show_progress()

    def rewrite(
        self,
        update: Callable[[ResultRecord], ResultRecord],
        note: Mapping[str, Any],
        *,
        counted_as: str,
    ) -> int:
        """Replace every stored result ``update`` changes (a calibration re-applied: no
        judge call), in one transaction, and ``results.jsonl`` with them; ``note`` and the
        count (as ``counted_as``) go into this attempt in ``run.json``."""
        db = self._database()
        changed = 0
        last = 0
        with self._store_errors():
            db.execute("BEGIN IMMEDIATE")
            try:
                while rows := db.execute(
                    "SELECT rowid, record FROM results WHERE rowid > ? ORDER BY rowid LIMIT 500",
                    (last,),
                ).fetchall():
                    updates = []
                    for rowid, text in rows:
                        record = ResultRecord.model_validate_json(text)
                        new = update(record)
                        if new != record:
                            updates.append((dumps(_keyed(new)), rowid))
                    db.executemany("UPDATE results SET record = ? WHERE rowid = ?", updates)
                    changed += len(updates)
                    last = rows[-1][0]
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        if changed:  # the file appended to is replaced: append to the new one
            with self._file_errors("the results of"):
                if self._appending is not None:
                    self._appending.close()
                self._write_results()
                self._appending = (self.path / RESULTS).open("a", encoding="utf-8")
        self.note_attempt({**note, counted_as: changed})
        return changed

    def note_attempt(self, fields: Mapping[str, Any]) -> None:
        """Add ``fields`` to this attempt in ``run.json`` (written now)."""
        self._manifest["attempts"][-1].update(fields)
        with self._file_errors("the files of"):
            self._show_progress()

    def records(self) -> Iterator[ResultRecord]:
        """Every result, in dataset order, then the run's metric order, then iteration."""
        with self._store_errors():
            for (text,) in self._database().execute(IN_ORDER):
                yield ResultRecord.model_validate_json(text)

    def export(self, summary: Mapping[str, Any], **ending: Any) -> None:
        """Rewrite ``results.jsonl`` in order, write ``summary.json`` and end the attempt in
        the manifest with ``ending`` (``status``, ``finished_at``, ``error``…)."""
        if self._appending is not None:
            self._appending.close()
            self._appending = None
        with self._store_errors():
            (self._stored,) = self._database().execute("SELECT COUNT(*) FROM results").fetchone()
        if ending.get("status") == COMPLETED and not self._stored and "bad_rows" in ending:
            # A dataset run (it counts bad rows) where no row was valid: nothing was
            # judged, nothing is complete.
            ending = {**ending, "status": FAILED, "error": "no result: no valid sample"}
        with self._file_errors("the files of"):
            self._write_results()
            write_json_atomic(self.path / SUMMARY, dict(summary))
            end_attempt(self._manifest, ending)
            self._show_progress()

    def close(self) -> None:
        if self._appending is not None:
            self._appending.close()
            self._appending = None
        if self._db is not None:
            self._db.close()
            self._db = None
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _write_results(self) -> None:
        with self._store_errors():
            rows = self._database().execute(IN_ORDER)
            write_text_atomic(self.path / RESULTS, (text + "\n" for (text,) in rows))

    def _show_progress(self) -> None:
        record_progress(self._manifest, self._stored)
        write_json_atomic(self.path / MANIFEST, checked_manifest(self._manifest))
        self._shown_at = time.monotonic()


def _keyed(record: ResultRecord) -> dict[str, Any]:
    row = record.model_dump(mode="json")
    # The key first, so that a line read by eye starts with what it is about.
    return {name: row.pop(name) for name in RECORD_KEY} | row


def _store_error(path: Path, exc: sqlite3.Error) -> RunDirectoryError:
    # SQLite reports a damaged or foreign file as a bare DatabaseError ("file is not a
    # database", "database disk image is malformed"); its subclasses are other troubles.
    if type(exc) is sqlite3.DatabaseError:
        return RunDirectoryError(
            f"{path} is damaged ({exc}): move it away to start this run afresh, or choose a "
            "new --out directory"
        )
    if isinstance(exc, sqlite3.OperationalError):  # a full or read-only disk, mostly
        return RunDirectoryError(
            f"cannot write {path}: {exc}; every result finished before is kept there: free "
            "some space (or make it writable) and run the same command again to go on"
        )
    return RunDirectoryError(f"{path} cannot be used: {exc}")


def _difference(previous: Mapping[str, Any], current: Mapping[str, Any]) -> str | None:
    """What of the inputs that must match differs between two runs' manifests, if any."""
    for section, field in MUST_MATCH:
        earlier = previous.get(section) or {}
        if (section, field) in RECORDED_SINCE_LATER and field not in earlier:
            continue
        before = earlier.get(field)
        now = (current.get(section) or {}).get(field)
        if before != now and not (
            section == "dataset" and _appended_to(earlier, current.get(section) or {})
        ):
            return f"{section} {field} ({before!r}, now {now!r})"
    return None


def _appended_to(earlier: Mapping[str, Any], now: Mapping[str, Any]) -> bool:
    """Whether the dataset ``now`` describes is the ``earlier`` one with rows appended (a
    test set grown, the traces of a later window): its finished results still belong."""
    size, sha256, path = earlier.get("bytes"), earlier.get("sha256"), now.get("path")
    if not (isinstance(size, int) and isinstance(sha256, str) and isinstance(path, str)):
        return False
    return grew_by_appending(path, sha256, size)


def writing(path: Path) -> bool:
    """Whether a veracity run is writing the run directory ``path`` now (holds its lock)."""
    if not (path / LOCK).exists():
        return False
    probe = FileLock(path / LOCK, thread_local=False)
    try:
        probe.acquire(timeout=0)
    except Timeout:
        return True
    except OSError:  # cannot even open it (read-only): nobody is writing there through it
        return False
    probe.release()
    return False
