"""Starting, stopping and staying quiet."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import time
from collections.abc import Callable

import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from veracity.testing import FakeLLMServer, Faults

USER: list[ChatCompletionMessageParam] = [{"role": "user", "content": "hi"}]

ClientFor = Callable[[FakeLLMServer], openai.OpenAI]


def _fake_threads() -> int:
    return sum(1 for thread in threading.enumerate() if thread.name.startswith("veracity-fake"))


def test_stop_is_prompt_with_open_keep_alive_connections(client_for: ClientFor) -> None:
    server = FakeLLMServer().start()
    port = server.port
    clients = [client_for(server) for _ in range(8)]
    for client in clients:
        client.chat.completions.create(model="m", messages=USER)  # leaves a pooled connection
    assert _fake_threads() == 1 + 8  # the serving thread, a handler per kept-alive connection
    server.stop()
    assert not server.running
    # stop() waits a bounded time for its handlers: none left means it woke every one.
    assert _fake_threads() == 0
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    server.stop()  # idempotent


@pytest.mark.timeout(60)
def test_stop_cuts_latency_short(client_for: ClientFor) -> None:
    server = FakeLLMServer(latency_s=3600.0).start()
    client = client_for(server)
    errors: list[BaseException] = []

    def call() -> None:
        try:
            client.chat.completions.create(model="m", messages=USER)
        except openai.APIError as error:
            errors.append(error)

    worker = threading.Thread(target=call)
    worker.start()
    deadline = time.monotonic() + 5
    while server.stats.requests == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    server.stop()
    assert _fake_threads() == 0  # the handler waiting out its hour was woken
    worker.join(30)
    assert not worker.is_alive()
    assert server.stats.requests == 1


def test_restart_and_properties(client_for: ClientFor) -> None:
    server = FakeLLMServer()
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.base_url
    with server:
        assert server.base_url == f"http://127.0.0.1:{server.port}/v1"
        assert server.anthropic_base_url == f"http://127.0.0.1:{server.port}"
        with pytest.raises(RuntimeError, match="already running"):
            server.start()
        client_for(server).chat.completions.create(model="m", messages=USER)
    with server:  # a stopped server can start again, keeping its counters
        client_for(server).chat.completions.create(model="m", messages=USER)
        assert server.stats.completions == 2


def test_client_disconnects_print_no_traceback(
    capfd: pytest.CaptureFixture[str], client_for: ClientFor
) -> None:
    with FakeLLMServer(latency_s=0.2, faults=Faults(drop_connection=0.5)) as server:
        # A client that hangs up mid-request, one that hangs up before the reply, and
        # a few dropped connections.
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 100\r\n\r\n{")
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            body = b'{"model": "m", "messages": [{"role": "user", "content": "x"}]}'
            sock.sendall(
                b"POST /v1/chat/completions HTTP/1.1\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            # Linger 0: closing sends a reset, so the server's write of the reply fails.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client = client_for(server)
        for _ in range(4):
            with contextlib.suppress(openai.APIConnectionError):
                client.chat.completions.create(model="m", messages=USER)
        time.sleep(0.3)  # let the abandoned request try to write its reply
        requests = server.stats.requests
    captured = capfd.readouterr()
    assert requests >= 5
    assert "Traceback" not in captured.err
    assert captured.err == ""
