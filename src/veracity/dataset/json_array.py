"""JSON files: an array of rows, or an object with a ``samples`` array (a labels file may
call it ``labels``), streamed by ijson a row at a time."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO, Final

import ijson

from veracity.dataset.errors import DatasetError
from veracity.dataset.raw import BOM, RawRow
from veracity.dataset.shapes import top_level_shape

_PEEK = 1 << 16
_WHITESPACE = b" \t\r\n"
_STARTS = frozenset({"start_map", "start_array"})
_ENDS = frozenset({"end_map", "end_array"})
SAMPLES: Final = ("samples",)
#: Levels of nesting past which a row is not built: a bad row, as in a JSONL file.
MAX_DEPTH: Final = 1000
#: Stands for a row nested more deeply than ``MAX_DEPTH``.
_TOO_DEEP: Final = object()


def _shape(arrays: Sequence[str]) -> str:
    named = " or ".join(repr(a) for a in arrays)
    return f"must be a JSON array or an object with a {named} array"


def _first_byte(stream: BinaryIO) -> bytes:
    """The first non-whitespace byte (empty if none); leaves the stream after any BOM."""
    start = len(BOM) if stream.read(len(BOM)) == BOM else 0
    stream.seek(start)
    first = b""
    while chunk := stream.read(_PEEK):
        stripped = chunk.lstrip(_WHITESPACE)
        if stripped:
            first = stripped[:1]
            break
    stream.seek(start)
    return first


def _ijson_message(exc: Exception) -> str:
    detail = exc.args[0] if exc.args else exc
    text = detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)
    lines = text.strip().splitlines()
    return repr(lines[0])[1:-1] if lines else type(exc).__name__  # escaped: it may quote the file


def _items(  # noqa: PLR0912 - one state machine over the parser's events
    events: Iterator[tuple[str, Any]], in_object: bool, name: str, arrays: Sequence[str]
) -> Iterator[object]:
    """The rows of the array, each built from parser events.

    ``basic_parse`` events carry no path: ijson's paths grow with the nesting, so a row
    nested 100,000 levels deep would cost gigabytes. Depth is counted here instead, and a
    row deeper than :data:`MAX_DEPTH` is skipped whole (:data:`_TOO_DEEP`).
    """
    depth = 0
    rows_depth: int | None = None if in_object else 1  # where the rows are, when inside
    key: str | None = None
    seen: str | None = None
    top_keys: list[str] = []  # for a file of another shape: named with what reads it
    builder: Any = None
    row_depth = 0
    for event, value in events:
        if row_depth:  # inside a row
            row_depth += (event in _STARTS) - (event in _ENDS)
            if builder is not None and row_depth > MAX_DEPTH:
                builder = None  # the rest of the row is skipped
            elif builder is not None:
                builder.event(event, value)
            if not row_depth:
                yield _TOO_DEEP if builder is None else builder.value
            continue
        if depth == rows_depth:
            if event in _STARTS:
                builder, row_depth = ijson.ObjectBuilder(), 1
                builder.event(event, value)
            elif event in _ENDS:
                depth, rows_depth = depth - 1, None
            else:
                yield value
            continue
        if in_object and depth == 1 and event == "map_key":
            key = value
            top_keys.append(value)
            continue
        if in_object and depth == 1 and key in arrays:
            if seen is not None:
                both = f"more than one {key!r} key" if seen == key else f"both {seen!r} and {key!r}"
                raise DatasetError(f"{name}: the top-level object has {both}")
            if event != "start_array":
                got = "an object" if event == "start_map" else event
                raise DatasetError(f"{name}: {key!r} must be an array, got {got}")
            seen, key, rows_depth = key, None, 2
        depth += (event in _STARTS) - (event in _ENDS)
    if in_object and seen is None:
        hint = top_level_shape(top_keys)
        raise DatasetError(
            f"{name}: the top-level object has no {arrays[0]!r} array; {_shape(arrays)}"
            + (f"; {hint}" if hint else "")
        )


def read_json(path: Path, name: str, arrays: Sequence[str] = SAMPLES) -> Iterator[RawRow]:
    """Stream the rows of a JSON file (the top-level array, or the array under one of the
    keys ``arrays``); a file malformed as a whole raises ``DatasetError``, a row nested too
    deeply is a bad row."""
    with path.open("rb") as stream:
        first = _first_byte(stream)
        if first not in (b"[", b"{"):
            got = "an empty file" if not first else "a value starting with " + repr(first)[1:]
            raise DatasetError(f"{name}: {_shape(arrays)}, got {got}")
        count = 0
        try:
            events = ijson.basic_parse(stream, use_float=True)
            for value in _items(events, first == b"{", name, arrays):
                count += 1
                if value is _TOO_DEEP:
                    error = f"invalid JSON: nested more than {MAX_DEPTH} levels deep"
                    yield RawRow(line=None, item=count, error=error)
                else:
                    yield RawRow(line=None, item=count, value=value)
        except (ijson.JSONError, UnicodeDecodeError, ValueError) as exc:
            where = f"after item {count}" if count else "before the first item"
            raise DatasetError(f"{name}: invalid JSON {where}: {_ijson_message(exc)}") from exc
