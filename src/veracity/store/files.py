"""Writing files so that a crash never leaves one half-written, and no NaN gets out."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# Read once, at import (setting it to read it is not thread-safe): a file veracity writes
# gets the mode any new file gets, as the SQLite store does, not mkstemp's private 0600.
FILE_MODE = 0o666 & ~_umask()


def ordinary_mode(path: Path) -> None:
    """Give ``path`` (a temporary file from mkstemp) the mode a new file gets."""
    path.chmod(FILE_MODE)


def dumps(value: Any, *, indent: int | None = None) -> str:
    # allow_nan=False: a NaN anywhere is a bug to surface, never a value to write.
    return json.dumps(value, ensure_ascii=False, allow_nan=False, indent=indent)


def _temporary_prefix(name: str) -> str:
    return f".{name}."


def write_text_atomic(path: Path, chunks: Iterable[str]) -> None:
    """Write ``chunks`` to ``path`` via a temporary file beside it, fsync and rename."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=_temporary_prefix(path.name), suffix=".tmp")
    try:
        ordinary_mode(Path(tmp))
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            for chunk in chunks:
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: Path, value: Any) -> None:
    """Write ``value`` as JSON to ``path`` atomically (see :func:`write_text_atomic`)."""
    write_text_atomic(path, [dumps(value, indent=2) + "\n"])


def remove_temporaries(directory: Path, names: Iterable[str]) -> None:
    """Remove what a process killed inside :func:`write_text_atomic` left of its temporary
    files for ``names`` (call only while no one else can be writing them)."""
    for name in names:
        for tmp in directory.glob(f"{_temporary_prefix(name)}*.tmp"):
            tmp.unlink(missing_ok=True)
