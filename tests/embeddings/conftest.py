"""The real local models, loaded once per test session with the network blocked."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from veracity.embeddings import BertScorer, LocalEmbedder


def _is_loopback(host: object) -> bool:
    if not isinstance(host, str):
        return True  # unix sockets and the like
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@contextmanager
def no_network() -> Iterator[list[str]]:
    """Refuse (and record) every non-loopback connection and name lookup."""
    attempts: list[str] = []
    real_connect = socket.socket.connect
    real_getaddrinfo = socket.getaddrinfo

    def connect(self: socket.socket, address: Any) -> None:
        host = address[0] if isinstance(address, tuple) else address
        if not _is_loopback(host):
            attempts.append(f"connect {host}")
            raise OSError(f"network blocked in tests: {host}")
        real_connect(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if not _is_loopback(host):
            attempts.append(f"lookup {host}")
            raise socket.gaierror(f"network blocked in tests: {host}")
        return real_getaddrinfo(host, *args, **kwargs)

    patched: list[tuple[Any, str, Callable[..., Any]]] = [
        (socket.socket, "connect", connect),
        (socket, "getaddrinfo", getaddrinfo),
    ]
    originals = [(owner, name, getattr(owner, name)) for owner, name, _ in patched]
    for owner, name, replacement in patched:
        setattr(owner, name, replacement)
    try:
        yield attempts
    finally:
        for owner, name, original in originals:
            setattr(owner, name, original)


class Loaded:
    """A loaded model and the network attempts made while loading it."""

    def __init__(self, model: Any, attempts: list[str]) -> None:
        self.model = model
        self.attempts = attempts


@pytest.fixture(scope="session")
def loaded_embedder() -> Iterator[Loaded]:
    embedder = LocalEmbedder()
    with no_network() as attempts:
        asyncio.run(embedder.load())
    yield Loaded(embedder, attempts)
    asyncio.run(embedder.aclose())


@pytest.fixture(scope="session")
def loaded_bert_scorer() -> Iterator[Loaded]:
    scorer = BertScorer()
    with no_network() as attempts:
        asyncio.run(scorer.load())
    yield Loaded(scorer, attempts)
    asyncio.run(scorer.aclose())


@pytest.fixture
def embedder(loaded_embedder: Loaded) -> LocalEmbedder:
    model: LocalEmbedder = loaded_embedder.model
    return model


@pytest.fixture
def bert_scorer(loaded_bert_scorer: Loaded) -> BertScorer:
    model: BertScorer = loaded_bert_scorer.model
    return model
