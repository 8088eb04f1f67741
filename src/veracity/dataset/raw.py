"""What a format reader hands on: one parsed row, or why it couldn't be parsed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class RawRow:
    """One row as a format reader found it.

    Exactly one of ``line`` (1-based physical line, JSONL and CSV), ``item`` (1-based
    position in the JSON array) and ``row`` (0-based index of a row in memory) is set.
    ``value`` is the parsed row, or ``None`` when ``error`` says why the row could not be
    parsed.
    """

    line: int | None
    item: int | None
    value: object = None
    error: str | None = None
    row: int | None = None


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not valid JSON")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def loads_strict(text: str) -> object:
    """``json.loads`` that rejects NaN and Infinity (they are not JSON)."""
    return _DECODER.decode(text)


def json_error_message(exc: ValueError) -> str:
    """A short reason for a JSON parse failure (the column, not the whole document)."""
    if isinstance(exc, json.JSONDecodeError):
        # Some messages end in "at" ("Unterminated string starting at"): one "at" is enough.
        problem = exc.msg.removesuffix(" at").removesuffix(" starting")
        return f"invalid JSON: {problem} at column {exc.colno}"
    return f"invalid JSON: {exc}"


def decode_error_message(exc: UnicodeDecodeError, line: int | None = None) -> str:
    """A short reason for bytes that are not UTF-8 (naming their line if it is not the row's)."""
    bad = exc.object[exc.start : exc.end].hex(" ")
    where = "" if line is None else f" on line {line}"
    return f"undecodable bytes (not UTF-8){where}: 0x{bad} at byte {exc.start + 1} of the line"


def physical_lines(stream: BinaryIO) -> Iterator[tuple[int, bytes]]:
    """Yield ``(line_number, raw_line)`` for a binary stream, without a leading UTF-8 BOM.

    Lines are split on ``\\n`` and keep their line ending.
    """
    for number, raw in enumerate(stream, start=1):
        yield number, raw[len(BOM) :] if number == 1 and raw.startswith(BOM) else raw
