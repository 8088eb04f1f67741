from __future__ import annotations

from collections.abc import Callable, Iterator

import openai
import pytest

from veracity.testing import FakeLLMServer

ClientFor = Callable[[FakeLLMServer], openai.OpenAI]


@pytest.fixture
def client_for() -> Iterator[ClientFor]:
    """Makes real OpenAI clients for a fake server: no retries, closed after the test."""
    clients: list[openai.OpenAI] = []

    def make(server: FakeLLMServer) -> openai.OpenAI:
        client = openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0, timeout=10)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running
