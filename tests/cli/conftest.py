"""What the command-line tests share."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from veracity.cli.common import err_console, out_console


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """A runner with wide consoles: a message is never wrapped in the middle of what a
    test looks for."""
    monkeypatch.setattr(out_console, "_width", 250)
    monkeypatch.setattr(err_console, "_width", 250)
    return CliRunner()
