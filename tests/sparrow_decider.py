"""sparrow-decider, a real third-party System One server (its model's weights ship in its
wheel, numpy only), run on loopback for tests: it tests the wire, not judging — its
yes/no answers are near chance.

The ``sparrow_decider`` fixture (tests/conftest.py) yields its base URL,
``http://127.0.0.1:PORT/v1``. Without the package (the dev extra installs it) the tests
using it are skipped, except under CI (``CI=true``), where they fail.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

START_TIMEOUT_S = 10.0
_ATTEMPTS = 3  # a free port can be taken between finding it and the server binding it


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}: CI must run the real System One server's tests", pytrace=False)
    pytest.skip(reason)


def _serving(root: str) -> bool:
    try:
        with urllib.request.urlopen(root, timeout=1) as answer:
            return bool(json.load(answer).get("status") == "ok")
    except (OSError, ValueError):
        return False


def _start(log: Path) -> tuple[subprocess.Popen[bytes], str] | None:
    """The server process and its root URL once it answers; None if it exited at once
    (its port taken); a test failure if it neither answers nor exits in time."""
    port = _free_port()
    command = [sys.executable, "-m", "sparrow_decider.cli", "serve",
               "--host", "127.0.0.1", "--port", str(port)]  # fmt: skip
    with log.open("ab") as sink:
        server = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    root = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            return None
        if _serving(root):
            return server, root
        time.sleep(0.05)
    _stop(server)
    pytest.fail(f"sparrow-decider did not answer in {START_TIMEOUT_S:g} s:\n{log.read_text()}")


def _stop(server: subprocess.Popen[bytes]) -> None:
    server.terminate()
    try:
        server.wait(timeout=5)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=5)


@contextlib.contextmanager
def running_sparrow_decider(folder: Path) -> Iterator[str]:
    """Start ``sparrow-decider serve`` on a free loopback port (its log in ``folder``),
    wait for it (at most 10 s), yield its base URL, and stop it."""
    if importlib.util.find_spec("sparrow_decider") is None:
        _unavailable("sparrow-decider is not installed (pip install -e '.[dev]')")
    log = folder / "sparrow-decider.log"
    for _ in range(_ATTEMPTS):
        started = _start(log)
        if started is not None:
            break
    else:
        pytest.fail(f"sparrow-decider exited at start {_ATTEMPTS} times:\n{log.read_text()}")
    server, root = started
    try:
        yield f"{root}/v1"
    finally:
        _stop(server)
