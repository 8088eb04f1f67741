"""Every test gets its own judge-response cache, so no test sees another's replies, and
the default embedding model runs in float32 everywhere, so that figures tests compare
do not depend on whether the machine has native bfloat16 (tests/embeddings/
test_precision.py covers bfloat16)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _pytest.nodeid import NodeId
from typer.testing import CliRunner

from tests.html.browser import FLAGS, find_chromium, unavailable
from tests.sparrow_decider import running_sparrow_decider
from veracity.cli.common import err_console, out_console
from veracity.embeddings.minilm import PRECISION_ENV

# Set before any fixture (session-wide ones load the model) and inherited by subprocesses.
os.environ[PRECISION_ENV] = "float32"


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep ``--dist loadgroup``'s groups on one worker each. pytest-xdist tells its
    scheduler an item's group by a ``@group`` suffix on the item's node id, which pytest 9.2's
    structured node ids no longer take (pytest-xdist issue 1386): each Ray test, and each of
    the real model's, then ran wherever, two Ray instances and two model servers at once.
    Added here when xdist's own suffix did not take; nothing to do once it does."""
    if not config.getoption("loadgroup", default=False):
        return
    for item in items:
        groups = {mark.args[0] if mark.args else mark.kwargs.get("name", "default")
                  for mark in item.iter_markers("xdist_group")}  # fmt: skip
        suffix = "@" + "_".join(sorted(map(str, groups)))
        if groups and not item.nodeid.endswith(suffix):
            item._id = NodeId.parse(item.nodeid + suffix)


@pytest.fixture(autouse=True)
def _own_response_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERACITY_CACHE", str(tmp_path / "response-cache.sqlite3"))


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """``veracity`` in-process, with wide consoles: a message is never wrapped in the middle
    of what a test looks for."""
    monkeypatch.setattr(out_console, "_width", 250)
    monkeypatch.setattr(err_console, "_width", 250)
    return CliRunner()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """One headless Chromium per test module (playwright's, with its own event loop), for
    the pages' browser tests (tests/html, tests/agreement)."""
    path = find_chromium()
    if path is None:
        unavailable("chromium is not on PATH (Debian: apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("the playwright package is not installed (pip install -e '.[dev]')")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=path, args=FLAGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="session")
def sparrow_decider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL (``http://127.0.0.1:PORT/v1``) of a real sparrow-decider System One
    server on loopback, for the session (tests/sparrow_decider.py)."""
    with running_sparrow_decider(tmp_path_factory.mktemp("sparrow-decider")) as url:
        yield url
