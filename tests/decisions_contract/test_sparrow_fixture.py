"""The sparrow-decider fixture: it starts a real server, stops it after, and without the
package skips — or fails under CI."""

from __future__ import annotations

import importlib.util
import socket
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.sparrow_decider import running_sparrow_decider


def test_the_server_answers_and_is_gone_after(tmp_path: Path) -> None:
    if importlib.util.find_spec("sparrow_decider") is None:
        pytest.skip("sparrow-decider is not installed")
    with running_sparrow_decider(tmp_path) as url:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        question = {"q": {"type": "noul", "instructions": "Is it broken?"}}
        reply = httpx.post(f"{url}/systemone", json={"state": "x", "questions": question})
        assert reply.status_code == 200
        port = urlsplit(url).port
    assert port is not None
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


@pytest.mark.parametrize(
    ("ci", "outcome"), [("", pytest.skip.Exception), ("true", pytest.fail.Exception)]
)
def test_a_missing_package_skips_or_fails_under_ci(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ci: str, outcome: type[BaseException]
) -> None:
    monkeypatch.setenv("CI", ci)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with (
        pytest.raises(outcome, match="sparrow-decider is not installed"),
        running_sparrow_decider(tmp_path),
    ):
        pass
