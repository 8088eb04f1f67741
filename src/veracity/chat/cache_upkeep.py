"""The response cache's upkeep, in SQL on its connection: the size of each reply, eviction
of the least recently used ones down to a bound, and what ``veracity cache`` shows and
clears."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

# What a reply takes in the file, roughly: its texts, its key twice (the table and the
# primary key's index) and the bookkeeping of a row and of its entry in the LRU index.
ROW_SIZE = (
    "2 * length(CAST(key AS BLOB)) + length(CAST(text AS BLOB)) + length(CAST(model AS BLOB))"
    " + length(CAST(judge AS BLOB)) + ifnull(length(CAST(tokens AS BLOB)), 0) + 64"
)
# A process that has not used the cache for this long is taken to be gone (killed): its
# replies lose the protection of a run in progress.
STALE_SESSION_S = 3600.0


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[None]:
    """One write transaction, taken at once (``BEGIN IMMEDIATE``): two processes evicting or
    writing the same file take turns (the busy timeout waits), never interleave."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        # SQLite has already rolled back after some failures (a full disk, say).
        with suppress(sqlite3.Error):
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def heartbeat(db: sqlite3.Connection, session: str, started: float, now: float) -> None:
    """Say that the process using the cache as ``session`` since ``started`` is alive."""
    db.execute("INSERT OR REPLACE INTO sessions VALUES (?, ?, ?)", (session, started, now))


def end_session(db: sqlite3.Connection, session: str) -> None:
    db.execute("DELETE FROM sessions WHERE id = ?", (session,))


def evict(db: sqlite3.Connection, max_bytes: int, now: float) -> int:
    """Delete the least recently used replies until the cache holds at most ``max_bytes``,
    sparing every reply written or used since the start of a run in progress (this one's
    or another process's). Returns the bytes still over the bound (0 when within it)."""
    db.execute("DELETE FROM sessions WHERE seen_at < ?", (now - STALE_SESSION_S,))
    ((since,),) = db.execute("SELECT min(started_at) FROM sessions")
    excess = _total(db) - max_bytes
    if excess <= 0:
        return 0
    # The oldest uses first, until what goes reaches the excess (the last one taken may
    # pass it): a running sum in the order of the LRU index.
    db.execute(
        """
        DELETE FROM replies WHERE rowid IN (
            SELECT rowid FROM (
                SELECT rowid, size,
                       sum(size) OVER (ORDER BY used_at, rowid ROWS UNBOUNDED PRECEDING) AS upto
                FROM replies WHERE used_at < ?
            ) WHERE upto - size < ?
        )
        """,
        (now if since is None else since, excess),
    )
    return max(0, _total(db) - max_bytes)


def _total(db: sqlite3.Connection) -> int:
    ((total,),) = db.execute("SELECT total(size) FROM replies")
    return int(total)


@dataclass(frozen=True)
class ModelShare:
    """The replies of one judge (``provider/model``, empty for replies cached before
    veracity kept it) and the model the endpoint named in them."""

    judge: str
    model: str
    entries: int
    bytes: int


@dataclass(frozen=True)
class CacheStats:
    entries: int
    bytes: int
    first_written: float | None
    last_written: float | None
    least_recently_used: float | None
    by_model: tuple[ModelShare, ...]
    sessions: int  # processes using the cache now, the one asking included
    free_bytes: int  # pages freed in the file, reused before it grows


def stats(db: sqlite3.Connection, now: float) -> CacheStats:
    ((entries, size, first, last, lru),) = db.execute(
        "SELECT count(*), total(size), min(created_at), max(created_at), min(used_at) FROM replies"
    )
    shares = tuple(
        ModelShare(judge, model, count, int(share))
        for judge, model, count, share in db.execute(
            "SELECT judge, model, count(*), total(size) FROM replies "
            "GROUP BY judge, model ORDER BY total(size) DESC, judge, model"
        )
    )
    ((sessions,),) = db.execute(
        "SELECT count(*) FROM sessions WHERE seen_at >= ?", (now - STALE_SESSION_S,)
    )
    ((free,),) = db.execute("PRAGMA freelist_count")
    ((page,),) = db.execute("PRAGMA page_size")
    return CacheStats(entries, int(size), first, last, lru, shares, sessions, free * page)


def selection(used_before: float | None, model: str | None) -> tuple[str, list[Any]]:
    """The WHERE clause of the replies last used before ``used_before`` and of ``model``:
    a judge (``openai/gpt-4o-mini``), its model part (``gpt-4o-mini``), or the model an
    endpoint named in its replies."""
    parts, parameters = ["1"], list[Any]()
    if used_before is not None:
        parts.append("used_at < ?")
        parameters.append(used_before)
    if model is not None:
        parts.append("(judge = ? OR model = ? OR substr(judge, instr(judge, '/') + 1) = ?)")
        parameters += [model] * 3
    return " AND ".join(parts), parameters


def measure(db: sqlite3.Connection, where: str, parameters: Sequence[Any]) -> tuple[int, int]:
    """The number and bytes of the replies ``where`` selects."""
    ((count, size),) = db.execute(
        f"SELECT count(*), total(size) FROM replies WHERE {where}", parameters
    )
    return int(count), int(size)


def delete(db: sqlite3.Connection, where: str, parameters: Sequence[Any]) -> tuple[int, int]:
    """Delete the replies ``where`` selects; their number and bytes."""
    with transaction(db):
        found = measure(db, where, parameters)
        db.execute(f"DELETE FROM replies WHERE {where}", parameters)
    return found
