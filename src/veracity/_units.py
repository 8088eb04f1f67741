"""Sizes and ages as a user writes them: ``1GiB``, ``500MB``, ``30d``."""

from __future__ import annotations

import math
import re

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$", re.IGNORECASE)
# KB, MB... are powers of 1000; KiB, MiB... and the bare K, M... of 1024, as du and ls print.
_SIZE_UNITS = {
    "": 1, "b": 1,
    "kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4,
    "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4,
    "kib": 1024, "mib": 1024**2, "gib": 1024**3, "tib": 1024**4,
}  # fmt: skip
_AGE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$", re.IGNORECASE)
_AGE_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
UNBOUNDED = ("none", "unlimited")


def parse_size(text: str | int) -> int | None:
    """Bytes from ``1GiB``, ``500MB``, ``2G`` or a plain number; ``None`` for ``none`` or
    ``unlimited`` (no bound). Raises :class:`ValueError` naming what is accepted."""
    if isinstance(text, int) and not isinstance(text, bool):
        if text < 0:
            raise ValueError(f"a size cannot be negative, not {text}")
        return text
    value = str(text)
    if value.strip().casefold() in UNBOUNDED:
        return None
    match = _SIZE.match(value)
    unit = match.group(2).casefold() if match else ""
    if match is None or unit not in _SIZE_UNITS:
        raise ValueError(
            f"bad size {value!r}: expected a number of bytes with an optional unit "
            "(KB, MB, GB; KiB, MiB, GiB), e.g. 1GiB or 500MB, or none for no bound"
        )
    return int(float(match.group(1)) * _SIZE_UNITS[unit])


def format_size(size: float) -> str:
    """``1.5 MiB``: binary units, as the default bound (1 GiB) is written."""
    if size < 1024:
        return f"{size:.0f} B"
    units = ("KiB", "MiB", "GiB", "TiB")
    power = min(int(math.log(size, 1024)), len(units))
    return f"{size / 1024**power:.1f} {units[power - 1]}"


def parse_age(text: str) -> float:
    """Seconds from ``30d``, ``12h``, ``90m``, ``2w`` or ``45s``."""
    match = _AGE.match(text)
    if match is None:
        raise ValueError(
            f"bad age {text!r}: expected a number and a unit, s, m, h, d or w (e.g. 30d)"
        )
    return float(match.group(1)) * _AGE_UNITS[match.group(2).casefold()]
