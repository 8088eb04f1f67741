"""JSON labels files: an array of rows, or an object with a ``labels`` (or ``samples``)
array, streamed by ijson. The dataset's JSON reader knows only ``samples``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, Final

import ijson

from veracity.dataset.raw import BOM, RawRow
from veracity.labels.model import LabelError

_ARRAYS: Final = ("labels", "samples")
_SHAPE: Final = "must be a JSON array or an object with a 'labels' (or 'samples') array"
_STARTS: Final = frozenset({"start_map", "start_array"})
_ENDS: Final = frozenset({"end_map", "end_array"})
_WHITESPACE: Final = b" \t\r\n"


def _first_byte(stream: BinaryIO) -> bytes:
    """The first byte that is not whitespace; leaves the stream just after any BOM."""
    start = len(BOM) if stream.read(len(BOM)) == BOM else 0
    stream.seek(start)
    first = b""
    while chunk := stream.read(1 << 16):
        if stripped := chunk.lstrip(_WHITESPACE):
            first = stripped[:1]
            break
    stream.seek(start)
    return first


def _message(exc: Exception) -> str:
    detail = exc.args[0] if exc.args else exc
    text = detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)
    lines = text.strip().splitlines()
    return repr(lines[0])[1:-1] if lines else type(exc).__name__  # escaped: it may quote the file


#: Levels of nesting past which a row is not built: a bad row, as in a JSONL file.
MAX_DEPTH: Final = 1000
#: Stands for a row nested more deeply than ``MAX_DEPTH``.
TOO_DEEP: Final = object()


def _items(events: Iterator[tuple[str, Any]], in_object: bool, name: str) -> Iterator[object]:
    """The rows of the labels array, each built from parser events.

    ``basic_parse`` events carry no path: ijson's paths grow with the nesting, so a row
    nested 100,000 levels deep would cost gigabytes. Depth is counted here instead.
    """
    depth = 0
    rows_depth: int | None = None if in_object else 1  # where the rows are, when inside
    key: str | None = None
    seen: str | None = None
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
                yield TOO_DEEP if builder is None else builder.value
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
            continue
        if in_object and depth == 1 and key in _ARRAYS:
            if seen is not None:
                both = f"{key!r} twice" if seen == key else f"both {seen!r} and {key!r}"
                raise LabelError(f"{name}: the top-level object has {both}")
            if event != "start_array":
                raise LabelError(f"{name}: {key!r} must be an array ({_SHAPE})")
            seen, key, rows_depth = key, None, 2
        depth += (event in _STARTS) - (event in _ENDS)
    if in_object and seen is None:
        raise LabelError(f"{name}: the top-level object has no 'labels' array; {_SHAPE}")


def read_json_labels(path: Path, name: str) -> Iterator[RawRow]:
    """The rows of a JSON file; a file that is malformed as a whole raises ``LabelError``."""
    with path.open("rb") as stream:
        first = _first_byte(stream)
        if first not in (b"[", b"{"):
            got = "an empty file" if not first else "a value starting with " + repr(first)[1:]
            raise LabelError(f"{name}: {_SHAPE}, got {got}")
        count = 0
        try:
            events = ijson.basic_parse(stream, use_float=True)
            for value in _items(events, first == b"{", name):
                count += 1
                if value is TOO_DEEP:
                    error = f"invalid JSON: nested more than {MAX_DEPTH} levels deep"
                    yield RawRow(line=None, item=count, error=error)
                else:
                    yield RawRow(line=None, item=count, value=value)
        except (ijson.JSONError, UnicodeDecodeError, ValueError) as exc:
            where = f"after item {count}" if count else "before the first item"
            raise LabelError(f"{name}: invalid JSON {where}: {_message(exc)}") from exc
