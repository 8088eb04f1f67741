"""The judge-response cache: a SQLite file of replies keyed by everything that shapes them,
and what each endpoint accepted, so a run never pays for the same rejection twice."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
import warnings
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from veracity.judges.chat.base import ChatModel, ChatReply
from veracity.prompts import ChatMessage, OutputSpec
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
)
# Columns added since the first version; a cache file of that version gains them on open.
ADDED_COLUMNS = {"truncated": "INTEGER NOT NULL DEFAULT 0", "tokens": "TEXT"}


def default_cache_path() -> Path:
    """``$VERACITY_CACHE`` if set, else ``veracity/responses.sqlite3`` in the user cache."""
    if explicit := os.environ.get("VERACITY_CACHE"):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "veracity" / "responses.sqlite3"


class ResponseCacheError(Exception):
    """The cache file cannot be opened or written: a full or read-only disk, no permission."""


# What to do when a full or read-only disk fails the shared cache.
SHARED_CACHE_ADVICE = (
    "free some space, set VERACITY_CACHE to a file elsewhere, or run with --no-cache"
)


class CorruptCacheWarning(UserWarning):
    """A response cache file was found damaged: it was set aside and a new one started."""


# SQLite's result codes for a damaged file (SQLITE_CORRUPT, SQLITE_NOTADB); the low byte
# of an extended code is its primary code.
_DAMAGED = frozenset({11, 26})


def _damaged(exc: sqlite3.DatabaseError) -> bool:
    return exc.sqlite_errorcode & 0xFF in _DAMAGED


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA busy_timeout=5000")
        for statement in SCHEMA:
            db.execute(statement)
        present = {row[1] for row in db.execute("PRAGMA table_info(replies)")}
        for column, declaration in ADDED_COLUMNS.items():
            if column not in present:
                db.execute(f"ALTER TABLE replies ADD COLUMN {column} {declaration}")
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


class ResponseCache:
    """Replies by key, in SQLite (WAL mode: readers and a killed writer never corrupt it).

    Every stored reply is committed at once, so a run killed at any moment keeps every
    reply it had received. A disk that fails it raises :class:`ResponseCacheError`. A file
    found damaged (on opening, or on any read or write) is set aside beside itself and the
    cache starts again empty, with a :class:`CorruptCacheWarning` naming it: a cache can
    always be rebuilt, a run that stops on one cannot go on.
    """

    def __init__(self, path: Path, *, advice: str = SHARED_CACHE_ADVICE) -> None:
        self.path = path
        self.advice = advice  # said when the disk fails it
        self._lock = threading.Lock()
        with self._writing():
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                self._db = _connect(path)
            except sqlite3.DatabaseError as exc:
                if not _damaged(exc):
                    raise
                self._db = self._rebuilt(exc)

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

    def _rows(self, sql: str, parameters: Sequence[Any] = ()) -> list[Any]:
        """The rows of one statement; on a damaged file, run again on a rebuilt cache."""
        with self._lock:
            try:
                return self._db.execute(sql, parameters).fetchall()
            except sqlite3.DatabaseError as exc:
                if not _damaged(exc):
                    raise
                self._db.close()
                with self._writing():
                    self._db = self._rebuilt(exc)
                return self._db.execute(sql, parameters).fetchall()

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
        return _connect(self.path)

    def get(self, key: str) -> ChatReply | None:
        rows = self._rows(
            "SELECT text, model, truncated, tokens FROM replies WHERE key = ?", (key,)
        )
        if not rows:
            return None
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

    async def fetch(self, key: str) -> ChatReply | None:
        """:meth:`get` for a caller on an event loop (see :class:`ReplyStore`)."""
        return self.get(key)

    def put(self, key: str, reply: ChatReply) -> None:
        tokens = json.dumps([t.to_json() for t in reply.tokens]) if reply.tokens else None
        with self._writing():
            self._rows(
                "INSERT OR REPLACE INTO replies (key, text, model, input_tokens, output_tokens, "
                "truncated, tokens) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    reply.text,
                    reply.model,
                    reply.usage.input_tokens,
                    reply.usage.output_tokens,
                    int(reply.truncated),
                    tokens,
                ),
            )

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

    def __len__(self) -> int:
        ((count,),) = self._rows("SELECT COUNT(*) FROM replies")
        return int(count)

    def close(self) -> None:
        with self._lock:
            self._db.close()


class ReplyStore(Protocol):
    """What :class:`CachedChat` keeps replies in: a :class:`ResponseCache`, or on a Ray
    worker a proxy to the driver's (:mod:`veracity.runner.ray_shared`). Only the lookup
    waits, the reply being needed; a proxy's writes go on meanwhile."""

    async def fetch(self, key: str) -> ChatReply | None: ...

    def put(self, key: str, reply: ChatReply) -> None: ...

    def delete(self, keys: Collection[str]) -> None: ...

    def negotiated(self, endpoint: str) -> dict[str, Any] | None: ...

    def remember(self, endpoint: str, state: Mapping[str, Any]) -> None: ...


@runtime_checkable
class Negotiating(Protocol):
    """A chat model that steps its request options down when an endpoint rejects them."""

    def negotiation_key(self) -> str: ...

    def negotiated(self) -> dict[str, Any]: ...

    def adopt(self, state: Mapping[str, Any]) -> None: ...


# Settings that change how calls are made, not what the reply says.
_NOT_IN_KEY = frozenset({"concurrency", "timeout_s", "max_attempts", "rpm", "cache", "negotiation"})


def cache_key(
    model: ChatModel, messages: Sequence[ChatMessage], output: OutputSpec, iteration: int
) -> str:
    """A digest of the judge, its settings, the rendered prompt, the reply's bound and the
    iteration index: each iteration is its own key, so repeated iterations stay independent."""
    judge = {k: v for k, v in model.describe().items() if k not in _NOT_IN_KEY}
    payload: dict[str, Any] = {
        "judge": judge,
        "messages": [[m.role, m.content] for m in messages],
        "output": [output.name, output.json_schema, output.max_tokens],
        "iteration": iteration,
    }
    encoded = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(encoded.encode()).hexdigest()


class CachedChat:
    """A chat model behind the response cache: a reply seen before is not asked again,
    unless it was taken back (:meth:`forget`) for giving no usable answer.

    A negotiating model starts from the options its endpoint accepted in an earlier run,
    so a re-run of a finished run makes no call at all, not even a rejected one. ``scope``
    says whose cache it is in ``run.json``: "shared" between runs, or "run" (a run's own
    replies, kept until it completes, when the shared cache is off).
    """

    def __init__(
        self, model: ChatModel, cache: ReplyStore, scope: Literal["shared", "run"] = "shared"
    ) -> None:
        self.model = model
        self.cache = cache
        self.scope = scope
        self._remembered: dict[str, Any] | None = None
        if isinstance(model, Negotiating):
            learnt = cache.negotiated(model.negotiation_key())
            if learnt is not None:
                model.adopt(learnt)
            self._remembered = model.negotiated()

    @property
    def name(self) -> str:
        return self.model.name

    @property
    def concurrency(self) -> int:
        return self.model.concurrency

    def describe(self) -> dict[str, Any]:
        return {**self.model.describe(), "cache": self.scope}

    async def complete(
        self, messages: Sequence[ChatMessage], output: OutputSpec, *, iteration: int
    ) -> ChatReply:
        key = cache_key(self.model, messages, output, iteration)
        cached = await self.cache.fetch(key)
        if cached is not None:
            return cached
        reply = await self.model.complete(messages, output, iteration=iteration)
        if isinstance(self.model, Negotiating):
            state = self.model.negotiated()
            if state != self._remembered:
                self.cache.remember(self.model.negotiation_key(), state)
                self._remembered = state
            # Stored under the options the reply was asked with: those in use now, for
            # this call and for every call that waited while the first one negotiated
            # (looked up under the options before, they were asked with the options after).
            key = cache_key(self.model, messages, output, iteration)
        self.cache.put(key, reply)
        return replace(reply, cache_key=key)

    def forget(self, replies: Iterable[ChatReply]) -> None:
        """Take ``replies`` back from the cache: they gave no usable answer (a judge_error),
        so no later run may take them for good ones; the next ask goes to the judge."""
        self.cache.delete({r.cache_key for r in replies if r.cache_key is not None})

    async def aclose(self) -> None:
        await self.model.aclose()
