"""JSON Lines: one JSON object per line, read one line at a time."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from veracity.dataset.raw import (
    RawRow,
    decode_error_message,
    json_error_message,
    loads_strict,
    physical_lines,
)


def read_jsonl(path: Path) -> Iterator[RawRow]:
    """Parse each non-blank line; undecodable or invalid lines, and lines nested too deeply
    for the parser, become errors in place."""
    with path.open("rb") as stream:
        for number, raw in physical_lines(stream):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield RawRow(line=number, item=None, error=decode_error_message(exc))
                continue
            if not text.strip():
                continue
            try:
                value = loads_strict(text)
            except ValueError as exc:
                yield RawRow(line=number, item=None, error=json_error_message(exc))
                continue
            except RecursionError:
                yield RawRow(line=number, item=None, error="invalid JSON: nested too deeply")
                continue
            yield RawRow(line=number, item=None, value=value)
