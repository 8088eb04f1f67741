"""JSON files: an array of rows, or an object with a ``samples`` array, streamed by ijson."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import ijson

from veracity.dataset.errors import DatasetError
from veracity.dataset.raw import BOM, RawRow

_PEEK = 1 << 16
_WHITESPACE = b" \t\r\n"
_STARTS = frozenset({"start_map", "start_array"})
_ENDS = frozenset({"end_map", "end_array"})
_SAMPLES = "samples"
_SHAPE = f"must be a JSON array or an object with a '{_SAMPLES}' array"


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
    return text.strip().splitlines()[0] if text.strip() else type(exc).__name__


def _items(events: Iterator[tuple[str, str, Any]], in_object: bool, name: str) -> Iterator[object]:
    """The values of the samples array, built one at a time from parser events."""
    item_prefix = f"{_SAMPLES}.item" if in_object else "item"
    in_samples = not in_object
    seen_samples = False
    builder: Any = None
    depth = 0
    for prefix, event, value in events:
        if builder is not None:
            builder.event(event, value)
            depth += (event in _STARTS) - (event in _ENDS)
            if depth == 0:
                yield builder.value
                builder = None
        elif in_samples and prefix == item_prefix:
            if event in _STARTS:
                builder = ijson.ObjectBuilder()
                builder.event(event, value)
                depth = 1
            else:
                yield value
        elif in_object and prefix == _SAMPLES and not in_samples:
            if seen_samples:
                raise DatasetError(f"{name}: more than one '{_SAMPLES}' key")
            if event != "start_array":
                got = "an object" if event == "start_map" else event
                raise DatasetError(f"{name}: '{_SAMPLES}' must be an array, got {got}")
            in_samples = seen_samples = True
        elif in_object and in_samples and prefix == _SAMPLES and event == "end_array":
            in_samples = False
    if in_object and not seen_samples:
        raise DatasetError(f"{name}: the top-level object has no '{_SAMPLES}' array; {_SHAPE}")


def read_json(path: Path, name: str) -> Iterator[RawRow]:
    """Stream the rows of a JSON file; a malformed file raises ``DatasetError``."""
    with path.open("rb") as stream:
        first = _first_byte(stream)
        if first not in (b"[", b"{"):
            got = "an empty file" if not first else f"a value starting with {first!r}"
            raise DatasetError(f"{name}: {_SHAPE}, got {got}")
        events = ijson.parse(stream, use_float=True)
        count = 0
        try:
            for value in _items(events, first == b"{", name):
                count += 1
                yield RawRow(line=None, item=count, value=value)
        except ijson.JSONError as exc:
            where = f"after item {count}" if count else "before the first item"
            raise DatasetError(f"{name}: invalid JSON {where}: {_ijson_message(exc)}") from exc
