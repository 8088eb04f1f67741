"""The judge-response cache: a SQLite file of replies keyed by everything that shapes them,
and what each endpoint accepted, so a run never pays for the same rejection twice."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

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


@contextmanager
def _writing(path: Path) -> Iterator[None]:
    """Turn what a failing disk raises (files and SQLite) into a message naming ``path``."""
    try:
        yield
    except (OSError, sqlite3.OperationalError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ResponseCacheError(
            f"cannot write the response cache {path}: {reason} (free some space, set "
            "VERACITY_CACHE to a file elsewhere, or run with --no-cache)"
        ) from exc


class ResponseCache:
    """Replies by key, in SQLite (WAL mode: readers and a killed writer never corrupt it).

    Every stored reply is committed at once, so a run killed at any moment keeps every
    reply it had received. A disk that fails it raises :class:`ResponseCacheError`.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        with _writing(path):
            self._open()

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=5000")
        for statement in SCHEMA:
            self._db.execute(statement)
        present = {row[1] for row in self._db.execute("PRAGMA table_info(replies)")}
        for column, declaration in ADDED_COLUMNS.items():
            if column not in present:
                self._db.execute(f"ALTER TABLE replies ADD COLUMN {column} {declaration}")

    def get(self, key: str) -> ChatReply | None:
        with self._lock:
            row = self._db.execute(
                "SELECT text, model, truncated, tokens FROM replies WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            return None
        tokens = tuple(TokenLogprob.from_json(t) for t in json.loads(row[3])) if row[3] else ()
        # A cached reply costs nothing; its original tokens stay in the table for reference.
        return ChatReply(
            text=row[0],
            usage=Usage(cached_calls=1),
            latency_s=0.0,
            model=row[1],
            truncated=bool(row[2]),
            tokens=tokens,
        )

    def put(self, key: str, reply: ChatReply) -> None:
        tokens = json.dumps([t.to_json() for t in reply.tokens]) if reply.tokens else None
        with self._lock, _writing(self.path):
            self._db.execute(
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

    def negotiated(self, endpoint: str) -> dict[str, Any] | None:
        """What an earlier run learnt of ``endpoint`` (see :class:`Negotiating`)."""
        with self._lock:
            row = self._db.execute(
                "SELECT state FROM negotiated WHERE endpoint = ?", (endpoint,)
            ).fetchone()
        if row is None:
            return None
        state = json.loads(row[0])
        return state if isinstance(state, dict) else None

    def remember(self, endpoint: str, state: Mapping[str, Any]) -> None:
        with self._lock, _writing(self.path):
            self._db.execute(
                "INSERT OR REPLACE INTO negotiated VALUES (?, ?)", (endpoint, json.dumps(state))
            )

    def __len__(self) -> int:
        with self._lock:
            (count,) = self._db.execute("SELECT COUNT(*) FROM replies").fetchone()
        return int(count)

    def close(self) -> None:
        with self._lock:
            self._db.close()


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
    """A chat model behind the response cache: a reply seen before is not asked again.

    A negotiating model starts from the options its endpoint accepted in an earlier run,
    so a re-run of a finished run makes no call at all, not even a rejected one.
    """

    def __init__(self, model: ChatModel, cache: ResponseCache) -> None:
        self.model = model
        self.cache = cache
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
        return {**self.model.describe(), "cache": True}

    async def complete(
        self, messages: Sequence[ChatMessage], output: OutputSpec, *, iteration: int
    ) -> ChatReply:
        key = cache_key(self.model, messages, output, iteration)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        reply = await self.model.complete(messages, output, iteration=iteration)
        if isinstance(self.model, Negotiating):
            state = self.model.negotiated()
            if state != self._remembered:
                self.cache.remember(self.model.negotiation_key(), state)
                self._remembered = state
                # Stored under the options the reply was asked with: those in use now.
                key = cache_key(self.model, messages, output, iteration)
        self.cache.put(key, reply)
        return reply

    async def aclose(self) -> None:
        await self.model.aclose()
