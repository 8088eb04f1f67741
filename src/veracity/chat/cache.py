"""The judge-response cache: a SQLite file of replies keyed by everything that shapes them,
and what each endpoint accepted, so a run never pays for the same rejection twice."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sqlite3
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import replace
from pathlib import Path
from typing import Any, Generic, Literal, Protocol, TypeVar, runtime_checkable

from veracity._units import format_size, parse_size
from veracity.chat.base import ChatModel, ChatReply, M, OverModel
from veracity.chat.cache_upkeep import (
    ROW_SIZE,
    CacheStats,
    delete,
    end_session,
    heartbeat,
    measure,
    selection,
    stats,
    transaction,
)
from veracity.chat.cache_upkeep import evict as evict_lru
from veracity.prompts import ChatMessage, OutputSpec
from veracity.store.sqlite_owner import foreign_database
from veracity.types import TokenLogprob, Usage

SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS replies (
        key TEXT PRIMARY KEY,
        text TEXT NOT NULL,
        model TEXT NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL
    )
    """,
    "CREATE TABLE IF NOT EXISTS negotiated (endpoint TEXT PRIMARY KEY, state TEXT NOT NULL)",
    # The processes using the cache now, so that eviction spares their runs' replies.
    "CREATE TABLE IF NOT EXISTS sessions "
    "(id TEXT PRIMARY KEY, started_at REAL NOT NULL, seen_at REAL NOT NULL)",
)
# Columns added since the first version; a cache file of an earlier version gains them on
# open (its replies then sized, and dated by when this version first saw them).
ADDED_COLUMNS = {
    "truncated": "INTEGER NOT NULL DEFAULT 0",
    "tokens": "TEXT",
    "judge": "TEXT NOT NULL DEFAULT ''",
    "created_at": "REAL NOT NULL DEFAULT 0",
    "used_at": "REAL NOT NULL DEFAULT 0",
    "size": "INTEGER NOT NULL DEFAULT 0",
}
# The replies in order of last use, with their sizes: eviction reads only this index.
INDEX = "CREATE INDEX IF NOT EXISTS replies_by_use ON replies (used_at, size)"

DEFAULT_MAX_BYTES = 1024**3
MAX_SIZE_VARIABLE = "VERACITY_CACHE_MAX_SIZE"
# Last uses are kept in memory and written together: a cache hit costs no write.
FLUSH_EVERY = 256  # uses
FLUSH_INTERVAL_S = 60.0  # also the heartbeat that keeps this process's runs protected


def default_cache_path() -> Path:
    """``$VERACITY_CACHE`` if set, else ``veracity/responses.sqlite3`` in the user cache."""
    if explicit := os.environ.get("VERACITY_CACHE"):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "veracity" / "responses.sqlite3"


def cache_max_bytes(given: str | int | None = None) -> int | None:
    """The shared cache's bound in bytes: ``given`` (``1GiB``, ``500MB``, a number of bytes,
    ``none`` for no bound), else ``$VERACITY_CACHE_MAX_SIZE``, else 1 GiB."""
    if given is not None:
        return parse_size(given)
    if explicit := os.environ.get(MAX_SIZE_VARIABLE):
        try:
            return parse_size(explicit)
        except ValueError as exc:
            raise ValueError(f"{MAX_SIZE_VARIABLE}: {exc}") from None
    return DEFAULT_MAX_BYTES


class ResponseCacheError(Exception):
    """The cache file cannot be opened or written: a full or read-only disk, no permission."""


# What to do when a full or read-only disk fails the shared cache.
SHARED_CACHE_ADVICE = (
    "free some space, set VERACITY_CACHE to a file elsewhere, or run with --no-cache"
)


class CorruptCacheWarning(UserWarning):
    """A response cache file was found damaged: it was set aside and a new one started."""


class CacheOverBoundWarning(UserWarning):
    """The replies of the runs in progress alone exceed the cache's bound."""


# SQLite's result codes for a damaged file (SQLITE_CORRUPT, SQLITE_NOTADB); the low byte
# of an extended code is its primary code.
_DAMAGED = frozenset({11, 26})


def _damaged(exc: sqlite3.DatabaseError) -> bool:
    # Errors raised before SQLite runs (a value of an unsupported type) carry no code.
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in _DAMAGED


# The cache's tables with the columns they have had from the first version.
OWN_TABLES = {
    "replies": ("key", "text", "model", "input_tokens", "output_tokens"),
    "negotiated": ("endpoint", "state"),
    "sessions": ("id", "started_at", "seen_at"),
}


def _refuse_foreign(path: Path) -> None:
    """Refuse a SQLite file that is not a response cache before anything changes it."""
    foreign = foreign_database(path, OWN_TABLES)
    if foreign is not None:
        raise ResponseCacheError(
            f"{path} is not a veracity response cache ({foreign}); it was left as it is: "
            "set VERACITY_CACHE to another file, or run with --no-cache"
        )


def _write_ahead_log(db: sqlite3.Connection) -> None:
    """Switch ``db`` to WAL. Two processes opening a new file at once both ask for the
    switch, and SQLite answers the second "locked" at once, without waiting its busy
    timeout: it is asked again, for up to five seconds."""
    deadline = time.monotonic() + 5.0
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _connect(path: Path, now: float) -> sqlite3.Connection:
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    try:
        db.execute("PRAGMA busy_timeout=5000")
        _write_ahead_log(db)
        db.execute("PRAGMA synchronous=NORMAL")
        # In one transaction: two processes opening an old file do not both add a column.
        with transaction(db):
            for statement in SCHEMA:
                db.execute(statement)
            present = {row[1] for row in db.execute("PRAGMA table_info(replies)")}
            for column, declaration in ADDED_COLUMNS.items():
                if column not in present:
                    db.execute(f"ALTER TABLE replies ADD COLUMN {column} {declaration}")
            if "size" not in present:
                db.execute(
                    f"UPDATE replies SET size = {ROW_SIZE}, created_at = ?, used_at = ?",
                    (now, now),
                )
            db.execute(INDEX)
    except BaseException:
        db.close()
        raise
    return db


def _with_log(path: Path) -> list[tuple[Path, str]]:
    """A SQLite file and its write-ahead log files, each with its suffix."""
    return [(Path(f"{path}{suffix}"), suffix) for suffix in ("", "-wal", "-shm")]


def remove_cache(path: Path) -> None:
    """Delete a (closed) cache file and its write-ahead log, if the disk lets it: a file
    left behind only takes room."""
    for part, _ in _with_log(path):
        with suppress(OSError):
            part.unlink(missing_ok=True)


def cache_file_size(path: Path) -> int:
    """The bytes a cache takes on disk, its write-ahead log included."""
    return sum(part.stat().st_size for part, _ in _with_log(path) if part.exists())


T = TypeVar("T")


class ResponseCache:
    """Replies by key, in SQLite (WAL mode: readers and a killed writer never corrupt it).

    Every stored reply is committed at once, so a run killed at any moment keeps every
    reply it had received. A disk that fails it raises :class:`ResponseCacheError`. A file
    found damaged (on opening, or on any read or write) is set aside beside itself and the
    cache starts again empty, with a :class:`CorruptCacheWarning` naming it: a cache can
    always be rebuilt, a run that stops on one cannot go on.

    ``max_bytes`` bounds it (``None``: no bound): on opening, on closing and after every
    eighth of the bound written, the least recently used replies are deleted until the
    replies fit, sparing those written or used since a run in progress started (this
    one's, or another process's), so a finished run run again still finds all of its
    replies whenever they fit in the bound. Last uses are written in batches (every
    :data:`FLUSH_EVERY` hits or :data:`FLUSH_INTERVAL_S` seconds), not one write a hit.
    """

    def __init__(
        self,
        path: Path,
        *,
        advice: str = SHARED_CACHE_ADVICE,
        max_bytes: int | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = path
        self.advice = advice  # said when the disk fails it
        self.max_bytes = max_bytes
        self._clock = clock
        self._lock = threading.Lock()
        self._session = uuid.uuid4().hex
        self._started = self._flushed = clock()
        self._used: set[str] = set()  # keys hit since the last flush
        self._written = 0  # bytes put since the last eviction
        self._warned = False
        self._closed = False
        with self._writing():
            path.parent.mkdir(parents=True, exist_ok=True)
            _refuse_foreign(path)
            try:
                self._db = _connect(path, self._started)
            except sqlite3.DatabaseError as exc:
                if not _damaged(exc):
                    raise
                self._db = self._rebuilt(exc)
        self._upkeep(evict=True)

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """Turn what a failing disk raises (files and SQLite) into a message naming the file."""
        try:
            yield
        except (OSError, sqlite3.OperationalError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise ResponseCacheError(
                f"cannot write the response cache {self.path}: {reason} ({self.advice})"
            ) from exc

    def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work`` on the connection, under the lock; on a damaged file, run again on a
        rebuilt cache."""
        with self._lock:
            try:
                return work(self._db)
            except sqlite3.DatabaseError as exc:
                if not _damaged(exc):
                    raise
                self._db.close()
                with self._writing():
                    self._db = self._rebuilt(exc)
                return work(self._db)

    def _rows(self, sql: str, parameters: Sequence[Any] = ()) -> list[Any]:
        return self._run(lambda db: db.execute(sql, parameters).fetchall())

    def _rebuilt(self, damage: sqlite3.DatabaseError) -> sqlite3.Connection:
        aside = self.path.with_name(f"{self.path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
        # The write-ahead log goes with its file: replayed onto a new one it would harm it.
        for part, suffix in _with_log(self.path):
            if part.exists():
                part.replace(f"{aside}{suffix}")
        warnings.warn(
            CorruptCacheWarning(
                f"the response cache {self.path} is damaged ({damage}); it was set aside as "
                f"{aside.name} and a new one started"
            ),
            stacklevel=2,
        )
        return _connect(self.path, self._clock())

    def _upkeep(self, *, evict: bool) -> None:
        """Write the last uses kept in memory, say this process is alive, and with
        ``evict`` (and a bound) evict down to the bound; all in one transaction."""

        def work(db: sqlite3.Connection) -> int:
            now = self._clock()
            over = 0
            with transaction(db):
                db.executemany(
                    "UPDATE replies SET used_at = ? WHERE key = ?", ((now, k) for k in self._used)
                )
                heartbeat(db, self._session, self._started, now)
                if evict and self.max_bytes is not None:
                    over = evict_lru(db, self.max_bytes, now)
            self._used.clear()
            self._flushed = now
            if evict:
                self._written = 0
            return over

        with self._writing():
            over = self._run(work)
        if over and not self._warned:
            self._warned = True
            warnings.warn(
                CacheOverBoundWarning(
                    f"the replies of the runs in progress take {format_size(over)} more than "
                    f"the response cache's bound of {format_size(self.max_bytes or 0)}: the "
                    f"oldest will be evicted when they end, and a re-run will ask for them "
                    f"again (raise the bound with --cache-max-size or {MAX_SIZE_VARIABLE})"
                ),
                stacklevel=3,
            )

    def _due(self) -> tuple[bool, bool]:
        """Whether to flush the last uses, and whether to evict too."""
        evict = self.max_bytes is not None and self._written >= max(self.max_bytes // 8, 1)
        flush = len(self._used) >= FLUSH_EVERY or self._clock() - self._flushed >= FLUSH_INTERVAL_S
        return flush or evict, evict

    def get(self, key: str) -> ChatReply | None:
        def work(db: sqlite3.Connection) -> list[Any]:
            rows = db.execute(
                "SELECT text, model, truncated, tokens FROM replies WHERE key = ?", (key,)
            ).fetchall()
            if rows:
                self._used.add(key)
            return rows

        rows = self._run(work)
        if not rows:
            return None
        self._maybe_upkeep()
        text, model, truncated, tokens = rows[0]
        logprobs = tuple(TokenLogprob.from_json(t) for t in json.loads(tokens)) if tokens else ()
        # A cached reply costs nothing; its original tokens stay in the table for reference.
        return ChatReply(
            text=text,
            usage=Usage(cached_calls=1),
            latency_s=0.0,
            model=model,
            truncated=bool(truncated),
            tokens=logprobs,
            cache_key=key,
        )

    def _maybe_upkeep(self) -> None:
        due, evict = self._due()
        if due:
            self._upkeep(evict=evict)

    async def fetch(self, key: str) -> ChatReply | None:
        """:meth:`get` for a caller on an event loop (see :class:`ReplyStore`)."""
        return self.get(key)

    def put(self, key: str, reply: ChatReply, judge: str = "") -> None:
        """Store ``reply`` under ``key``; ``judge`` names who gave it (``provider/model``)."""
        tokens = json.dumps([t.to_json() for t in reply.tokens]) if reply.tokens else None
        now = self._clock()
        with self._writing():
            self._rows(
                "INSERT OR REPLACE INTO replies (key, text, model, input_tokens, output_tokens, "
                f"truncated, tokens, judge, created_at, used_at, size) SELECT *, {ROW_SIZE} "
                "FROM (SELECT ? AS key, ? AS text, ? AS model, ?, ?, ?, ? AS tokens, ? AS judge, "
                "? AS created_at, ? AS used_at)",
                (
                    key,
                    reply.text,
                    reply.model,
                    reply.usage.input_tokens,
                    reply.usage.output_tokens,
                    int(reply.truncated),
                    tokens,
                    judge,
                    now,
                    now,
                ),
            )
        self._written += len(reply.text) + len(tokens or "")
        self._maybe_upkeep()

    def delete(self, keys: Collection[str]) -> None:
        if keys:
            marks = ", ".join("?" * len(keys))
            with self._writing():
                self._rows(f"DELETE FROM replies WHERE key IN ({marks})", tuple(keys))

    def negotiated(self, endpoint: str) -> dict[str, Any] | None:
        """What an earlier run learnt of ``endpoint`` (see :class:`Negotiating`)."""
        rows = self._rows("SELECT state FROM negotiated WHERE endpoint = ?", (endpoint,))
        if not rows:
            return None
        state = json.loads(rows[0][0])
        return state if isinstance(state, dict) else None

    def remember(self, endpoint: str, state: Mapping[str, Any]) -> None:
        with self._writing():
            self._rows(
                "INSERT OR REPLACE INTO negotiated VALUES (?, ?)", (endpoint, json.dumps(state))
            )

    def stats(self) -> CacheStats:
        """What ``veracity cache info`` shows: entries, bytes, dates, shares by model."""
        return self._run(lambda db: stats(db, self._clock()))

    def measure(
        self, used_before: float | None = None, model: str | None = None
    ) -> tuple[int, int]:
        """The number and bytes of the replies :meth:`clear` would delete."""
        where, parameters = selection(used_before, model)
        return self._run(lambda db: measure(db, where, parameters))

    def clear(self, used_before: float | None = None, model: str | None = None) -> tuple[int, int]:
        """Delete the replies last used before ``used_before`` (a time) and of ``model``
        (a judge, its model part, or the model an endpoint named), all by default; their
        number and bytes. The file then shrinks, unless another process holds it open."""
        where, parameters = selection(used_before, model)
        with self._writing():
            found = self._run(lambda db: delete(db, where, parameters))
            # VACUUM gives the freed pages back to the disk; another process reading
            # the file (a run in progress) makes it wait, then fail: the pages stay free
            # for SQLite to reuse.
            with suppress(sqlite3.OperationalError):
                self._run(lambda db: db.execute("VACUUM"))
        return found

    def __len__(self) -> int:
        ((count,),) = self._rows("SELECT COUNT(*) FROM replies")
        return int(count)

    def close(self) -> None:
        """Write the last uses, evict down to the bound, and close (once; again is a no-op).
        A disk that fails this upkeep is left to the next opening: every reply is stored."""
        if self._closed:
            return
        self._closed = True
        with suppress(ResponseCacheError):
            self._upkeep(evict=True)
        with self._lock, suppress(sqlite3.Error):
            end_session(self._db, self._session)
        with self._lock:
            self._db.close()


class ReplyStore(Protocol):
    """What :class:`CachedChat` keeps replies in: a :class:`ResponseCache`, or on a Ray
    worker a proxy to the driver's (:mod:`veracity.runner.ray_shared`). Only the lookup
    waits, the reply being needed; a proxy's writes go on meanwhile."""

    async def fetch(self, key: str) -> ChatReply | None: ...

    def put(self, key: str, reply: ChatReply, judge: str = "") -> None: ...

    def delete(self, keys: Collection[str]) -> None: ...

    def negotiated(self, endpoint: str) -> dict[str, Any] | None: ...

    def remember(self, endpoint: str, state: Mapping[str, Any]) -> None: ...


@runtime_checkable
class Negotiating(Protocol):
    """A chat model that steps its request options down when an endpoint rejects them."""

    def negotiation_key(self) -> str: ...

    def negotiated(self) -> dict[str, Any]: ...

    def adopt(self, state: Mapping[str, Any]) -> None: ...


# Settings that change how calls are made, not what the reply says (a batch's reply is a
# live call's: either serves the other).
NOT_IN_KEY = frozenset(
    {"concurrency", "timeout_s", "max_attempts", "rpm", "cache", "negotiation", "batch"}
)


def key_of(described: Mapping[str, Any], not_in_key: Collection[str], **asked: Any) -> str:
    """A digest of a model's settings (``described``, less ``not_in_key``) and of what is
    ``asked`` of it."""
    judge = {k: v for k, v in described.items() if k not in not_in_key}
    encoded = json.dumps({"judge": judge, **asked}, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(encoded.encode()).hexdigest()


def cache_key(
    model: ChatModel, messages: Sequence[ChatMessage], output: OutputSpec, iteration: int
) -> str:
    """A digest of the judge, its settings, the rendered prompt, the reply's bound and the
    iteration index: each iteration is its own key, so repeated iterations stay independent."""
    return key_of(
        model.describe(),
        NOT_IN_KEY,
        messages=[[m.role, m.content] for m in messages],
        output=[output.name, output.json_schema, output.max_tokens],
        iteration=iteration,
    )


class InFlight(Generic[T]):
    """What a cached model is asking now, by cache key, and the answer to come (``None`` if
    none came): a caller of a key already being asked waits for that answer instead of
    asking again. Only callers on the asking event loop wait; another loop's (a thread's)
    ask for themselves."""

    def __init__(self) -> None:
        self._asking: dict[tuple[int, str], asyncio.Future[T | None]] = {}

    def __len__(self) -> int:
        return len(self._asking)

    def pending(self, key: str) -> asyncio.Future[T | None] | None:
        """The answer to come for ``key``, if it is being asked on this loop. Await it
        shielded: a waiter cancelled must not cancel the call it waits on."""
        return self._asking.get((id(asyncio.get_running_loop()), key))

    def start(self, key: str) -> Callable[[T | None], None]:
        """Mark ``key`` as being asked; the function returned hands its answer (``None``:
        none came) to those waiting. Call it once, in a ``finally``."""
        loop = asyncio.get_running_loop()
        asked = (id(loop), key)
        future: asyncio.Future[T | None] = loop.create_future()
        self._asking[asked] = future

        def finish(answer: T | None) -> None:
            del self._asking[asked]
            future.set_result(answer)

        return finish


class CachedModel(OverModel[M]):
    """``model`` behind the response cache ``cache``; ``scope`` says whose cache it is in
    ``run.json``: "shared" between runs, or "run" (a run's own replies, kept until it
    completes, when the shared cache is off). What a negotiating model learns of its
    endpoint is read from the cache and written back to it."""

    def __init__(
        self, model: M, cache: ReplyStore, scope: Literal["shared", "run"] = "shared"
    ) -> None:
        self.model = model
        self.cache = cache
        self.scope = scope
        self._remembered: dict[str, Any] | None = None
        self.adopt_learnt()

    def describe(self) -> dict[str, Any]:
        return {**self.model.describe(), "cache": self.scope}

    def adopt_learnt(self) -> None:
        """Have the model, if it negotiates, take up what was learnt of its endpoint and
        written to the cache (by an earlier run, or by other processes: a Ray run's workers)."""
        if isinstance(self.model, Negotiating):
            learnt = self.cache.negotiated(self.model.negotiation_key())
            if learnt is not None:
                self.model.adopt(learnt)
            self._remembered = self.model.negotiated()

    def remember_learnt(self) -> None:
        """Write to the cache what the model, if it negotiates, has learnt of its endpoint
        since it was last written there."""
        if isinstance(self.model, Negotiating):
            state = self.model.negotiated()
            if state != self._remembered:
                self.cache.remember(self.model.negotiation_key(), state)
            self._remembered = state


class CachedChat(CachedModel[ChatModel]):
    """A chat model behind the response cache: a reply seen before is not asked again,
    unless it was taken back (:meth:`forget`) for giving no usable answer.

    A negotiating model starts from the options its endpoint accepted in an earlier run,
    so a re-run of a finished run makes no call at all, not even a rejected one.

    A prompt already being asked is not asked again at the same time: the second caller
    waits for the first one's reply and takes it as a cached one (two systems giving the
    same answer share one call, and get the same verdicts, live as from the cache). If the
    first call fails, the one waiting asks for itself.
    """

    def __init__(
        self, model: ChatModel, cache: ReplyStore, scope: Literal["shared", "run"] = "shared"
    ) -> None:
        super().__init__(model, cache, scope)
        self._in_flight: InFlight[ChatReply] = InFlight()

    async def complete(
        self, messages: Sequence[ChatMessage], output: OutputSpec, *, iteration: int
    ) -> ChatReply:
        key = cache_key(self.model, messages, output, iteration)
        while True:
            cached = await self.cache.fetch(key)
            if cached is not None:
                return cached
            asking = self._in_flight.pending(key)
            if asking is None:
                break
            # Shielded: a caller cancelled while waiting does not cancel the call it waits on.
            answered = await asyncio.shield(asking)
            if answered is not None:
                return replace(answered, usage=Usage(cached_calls=1), latency_s=0.0)
        finish = self._in_flight.start(key)
        reply: ChatReply | None = None
        try:
            reply = await self._ask(key, messages, output, iteration)
            return reply
        finally:
            finish(reply)

    async def _ask(
        self, key: str, messages: Sequence[ChatMessage], output: OutputSpec, iteration: int
    ) -> ChatReply:
        reply = await self.model.complete(messages, output, iteration=iteration)
        self.remember_learnt()
        if isinstance(self.model, Negotiating):
            # Stored under the options the reply was asked with: those in use now, for
            # this call and for every call that waited while the first one negotiated
            # (looked up under the options before, they were asked with the options after).
            key = cache_key(self.model, messages, output, iteration)
        self.cache.put(key, reply, self.model.name)
        return replace(reply, cache_key=key)

    def forget(self, replies: Iterable[ChatReply]) -> None:
        """Take ``replies`` back from the cache: they gave no usable answer (a judge_error),
        so no later run may take them for good ones; the next ask goes to the judge."""
        self.cache.delete({r.cache_key for r in replies if r.cache_key is not None})


def forget(model: ChatModel, replies: Iterable[ChatReply]) -> None:
    """Take ``replies`` back from the response cache ``model`` answers through, if it has
    one: they gave no usable answer, and served again they would only give the same error,
    so the next ask must reach the model."""
    if isinstance(model, CachedChat):
        model.forget(replies)
