"""``veracity ARGS`` in-process, as a process of its own would run it: seconds faster than a
subprocess, with the same output. Tests that need a real process (signals, a closed or
full stdout, resource limits, the crash handler) start one."""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

from typer.testing import CliRunner

from veracity.cli.app import _show_warning, app
from veracity.store import reading

# What a test's own environment may hold that would choose a judge for the command.
_PROVIDER_PREFIXES = ("OPENAI", "ANTHROPIC")


@dataclass(frozen=True)
class Completed:
    """What a finished command left, named as :class:`subprocess.CompletedProcess` names it."""

    returncode: int
    stdout: str
    stderr: str


def veracity(*args: str, env: Mapping[str, str] | None = None) -> Completed:
    """Run ``veracity ARGS`` with ``env`` laid over an environment without provider keys:
    veracity's warnings go to stderr as the command shows them (not raised), each damaged
    run file is named once in this command, and an unexpected exception is raised."""
    overrides: dict[str, str | None] = {
        name: None for name in os.environ if name.startswith(_PROVIDER_PREFIXES)
    }
    overrides.update(env or {})
    reading._warned.clear()
    with warnings.catch_warnings():  # restores showwarning too
        warnings.simplefilter("default")
        warnings.showwarning = _show_warning
        done = CliRunner().invoke(app, list(args), env=overrides, catch_exceptions=False)
    return Completed(done.exit_code, done.stdout, done.stderr)
