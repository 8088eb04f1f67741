"""Writing files so that a crash never leaves one half-written, and no NaN gets out."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def dumps(value: Any, *, indent: int | None = None) -> str:
    # allow_nan=False: a NaN anywhere is a bug to surface, never a value to write.
    return json.dumps(value, ensure_ascii=False, allow_nan=False, indent=indent)


def write_json_atomic(path: Path, value: Any) -> None:
    """Write ``value`` as JSON to ``path`` via a temporary file, fsync and rename."""
    text = dumps(value, indent=2) + "\n"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
