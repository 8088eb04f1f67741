"""Every test gets its own judge-response cache, so no test sees another's replies."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _own_response_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERACITY_CACHE", str(tmp_path / "response-cache.sqlite3"))
