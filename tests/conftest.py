"""Every test gets its own judge-response cache, so no test sees another's replies, and
the default embedding model runs in float32 everywhere, so that figures tests compare
do not depend on whether the machine has native bfloat16 (tests/embeddings/
test_precision.py covers bfloat16)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from veracity.embeddings.minilm import PRECISION_ENV

# Set before any fixture (session-wide ones load the model) and inherited by subprocesses.
os.environ[PRECISION_ENV] = "float32"


@pytest.fixture(autouse=True)
def _own_response_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERACITY_CACHE", str(tmp_path / "response-cache.sqlite3"))
