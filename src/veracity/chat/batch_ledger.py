"""Where a run's batches are written down before they are waited for: which batch each
request (by its cache key, also its ``custom_id``) went in, and in which phase. A run
killed while its batches are being processed finds them here and polls them again
instead of paying for them twice."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from veracity.chat.cache_upkeep import transaction

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS batches "
    "(id TEXT PRIMARY KEY, phase INTEGER NOT NULL, submitted_at REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS requests (key TEXT PRIMARY KEY, batch_id TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS requests_by_batch ON requests (batch_id)",
)


class BatchLedger:
    """The batches of one run, in a SQLite file (``path``) or in memory (``None``: a run
    without a run directory cannot be resumed anyway). Every write is committed at once."""

    def __init__(self, path: Path | None) -> None:
        self._db = sqlite3.connect(
            ":memory:" if path is None else path, isolation_level=None, check_same_thread=False
        )
        with transaction(self._db):
            for statement in SCHEMA:
                self._db.execute(statement)

    def record(self, batch_id: str, phase: int, keys: Sequence[str]) -> None:
        """A batch just created, with its requests' keys (a key sent again moves to it)."""
        with transaction(self._db):
            self._db.execute(
                "INSERT OR REPLACE INTO batches VALUES (?, ?, ?)", (batch_id, phase, time.time())
            )
            self._db.executemany(
                "INSERT OR REPLACE INTO requests VALUES (?, ?)", ((k, batch_id) for k in keys)
            )

    def batch_of(self, key: str) -> str | None:
        row = self._db.execute("SELECT batch_id FROM requests WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def keys_of(self, batch_id: str) -> list[str]:
        rows = self._db.execute("SELECT key FROM requests WHERE batch_id = ?", (batch_id,))
        return [str(key) for (key,) in rows]

    def submitted_at(self, batch_id: str) -> float:
        row = self._db.execute("SELECT submitted_at FROM batches WHERE id = ?", (batch_id,))
        found = row.fetchone()
        return time.time() if found is None else float(found[0])

    def phase_of(self, batch_id: str) -> int:
        row = self._db.execute("SELECT phase FROM batches WHERE id = ?", (batch_id,)).fetchone()
        return 0 if row is None else int(row[0])

    def phase(self) -> int:
        """The last phase recorded (0: none)."""
        (phase,) = self._db.execute("SELECT COALESCE(MAX(phase), 0) FROM batches").fetchone()
        return int(phase)

    def settle(self, keys: Iterable[str]) -> None:
        """Forget ``keys``: answered (their replies are in the cache now), or to be sent
        again in a batch of their own."""
        with transaction(self._db):
            self._db.executemany("DELETE FROM requests WHERE key = ?", ((k,) for k in keys))
            self._db.execute(
                "DELETE FROM batches WHERE id NOT IN (SELECT DISTINCT batch_id FROM requests)"
            )

    def close(self) -> None:
        self._db.close()
