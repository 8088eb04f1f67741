"""Reading a user's file whole, bounded by the read itself: at most ``limit`` + 1 bytes
are ever read, whatever the path is — a regular file, a pipe, ``/dev/zero`` — so a file
too large is refused without being held in memory. (A size from ``stat`` says nothing of
a pipe or a device.)"""

from __future__ import annotations

from pathlib import Path


class FileTooLargeError(ValueError):
    """A file larger than its reader allows (the message says the limit)."""


def read_bounded(path: Path, limit: int) -> bytes:
    """The bytes of ``path``; :class:`FileTooLargeError` past ``limit`` bytes; ``OSError``
    as ``open`` and ``read`` raise it."""
    with path.open("rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise FileTooLargeError(f"larger than {limit:,} bytes")
    return data
