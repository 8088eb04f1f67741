"""Counters of what the fake LLM server did, and their snapshot."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ServerStats:
    """A snapshot of the server's counters (see :attr:`FakeLLMServer.stats`)."""

    requests: int
    """Every HTTP request received, whatever became of it."""
    by_status: Mapping[int, int]
    """Responses sent, by HTTP status (dropped connections send none)."""
    faults: Mapping[str, int]
    """Injected faults by kind: rate_limit, status_5xx, drop_connection, …"""
    manglings: Mapping[str, int]
    """Which mangling each ``malformed_content`` fault applied."""
    completions: int
    """Chat completions served with an assistant reply (mangled or not)."""
    embeddings: int
    """Embedding requests served."""
    prompt_tokens: int
    """Prompt tokens (approximate) of the completions served."""
    completion_tokens: int
    max_concurrent: int
    """The most requests being handled at the same time."""
    in_flight: int = 0
    """Requests being handled right now."""


class RequestCounters:
    """Thread-safe counters every fake server keeps, plus the recorded request bodies."""

    def __init__(self, *, record_requests: bool = True) -> None:
        self._lock = threading.Lock()
        self._record = record_requests
        self._in_flight = 0
        self._clear()

    def _clear(self) -> None:
        self._requests = 0
        self._by_status: Counter[int] = Counter()
        self._faults: Counter[str] = Counter()
        self._manglings: Counter[str] = Counter()
        self._max_concurrent = self._in_flight
        self._bodies: list[dict[str, Any]] = []

    def reset(self) -> None:
        with self._lock:
            self._clear()

    def begin(self) -> None:
        with self._lock:
            self._requests += 1
            self._in_flight += 1
            self._max_concurrent = max(self._max_concurrent, self._in_flight)

    def end(self, status: int | None) -> None:
        with self._lock:
            self._in_flight -= 1
            if status is not None:
                self._by_status[status] += 1

    def body(self, body: dict[str, Any]) -> None:
        if not self._record:
            return
        with self._lock:
            self._bodies.append(body)

    def fault(self, kind: str, mangling: str | None = None) -> None:
        with self._lock:
            self._faults[kind] += 1
            if mangling is not None:
                self._manglings[mangling] += 1

    def bodies(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._bodies)

    def _shared(self) -> dict[str, Any]:
        """The counters every server's snapshot has (read under the lock)."""
        return {
            "requests": self._requests,
            "by_status": dict(self._by_status),
            "faults": dict(self._faults),
            "manglings": dict(self._manglings),
            "max_concurrent": self._max_concurrent,
            "in_flight": self._in_flight,
        }


class StatsCollector(RequestCounters):
    """The fake LLM server's counters behind :class:`ServerStats`."""

    def _clear(self) -> None:
        super()._clear()
        self._completions = 0
        self._embeddings = 0
        self._prompt_tokens = 0
        self._completion_tokens = 0

    def completion(self, prompt_tokens: int, completion_tokens: int) -> None:
        with self._lock:
            self._completions += 1
            self._prompt_tokens += prompt_tokens
            self._completion_tokens += completion_tokens

    def embedding(self) -> None:
        with self._lock:
            self._embeddings += 1

    def snapshot(self) -> ServerStats:
        with self._lock:
            return ServerStats(
                **self._shared(),
                completions=self._completions,
                embeddings=self._embeddings,
                prompt_tokens=self._prompt_tokens,
                completion_tokens=self._completion_tokens,
            )
