"""An error no command handles (a bug): one line for the user, the traceback in a file
(exit code 4, SPEC §6)."""

from __future__ import annotations

import os
import re
import sys
import tempfile
import traceback
from datetime import UTC, datetime
from pathlib import Path

from veracity._scrub import scrub_secrets
from veracity._version import __version__

# Environment variables whose values are credentials: their values are masked wherever
# the report quotes them (an exception message can hold a key, a URL with user info…).
_SECRET_NAME = re.compile(r"(?i)KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH")


def _scrubbed(text: str) -> str:
    for name, value in os.environ.items():
        if _SECRET_NAME.search(name):
            text = scrub_secrets(text, value.strip())
    return scrub_secrets(text)


def _report_text(exc: BaseException, argv: list[str]) -> str:
    lines = [
        f"veracity {__version__} on Python {sys.version.split()[0]} ({sys.platform})",
        f"time: {datetime.now(UTC).isoformat(timespec='seconds')}",
        "command: " + " ".join(argv),
        "",
        *traceback.format_exception(exc),
    ]
    return _scrubbed("\n".join(line.rstrip("\n") for line in lines)) + "\n"


def _write_report(text: str) -> Path:
    fd, name = tempfile.mkstemp(prefix="veracity-crash-", suffix=".txt")
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(text)
    return Path(name)


def _where(exc: BaseException) -> str:
    """The innermost frame of veracity's own code the error came through (file:line)."""
    frames = traceback.extract_tb(exc.__traceback__)
    own = [frame for frame in frames if f"{os.sep}veracity{os.sep}" in frame.filename]
    if not (own or frames):
        return "unknown place"
    frame = (own or frames)[-1]
    marker = f"{os.sep}veracity{os.sep}"
    name = frame.filename
    shown = "veracity/" + name.rsplit(marker, 1)[1] if marker in name else Path(name).name
    return f"{shown.replace(os.sep, '/')}:{frame.lineno}"


def crash_line(exc: BaseException, argv: list[str]) -> str:
    """Write the full report of ``exc`` and return the one line to show for it."""
    first = str(exc).strip().split("\n", 1)[0][:200]
    what = _scrubbed(f"{type(exc).__name__}: {first}" if first else type(exc).__name__)
    try:
        where = f"full report in {_write_report(_report_text(exc, argv))}"
    except OSError as write_error:
        where = f"no report written ({write_error.strerror or write_error})"
    return (
        f"internal error (a bug in veracity): {what} at {_where(exc)}; {where} "
        "— please attach it to an issue"
    )
