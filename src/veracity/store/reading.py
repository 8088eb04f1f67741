"""Reading a run directory's files back, validated: whatever a damaged or edited file
holds, a reader gets results of the right types, and a warning (:class:`RunFileWarning`)
names what was left out."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import ValidationError

from veracity.dataset.normalize import describe_validation_error
from veracity.dataset.raw import decode_error_message, json_error_message
from veracity.store.layout import RESULTS
from veracity.types import ResultRecord

# What identifies a result (the store's primary key): a second line of one key replaces
# the first, as a second insert does in the store.
RESULT_KEY = ("sample_id", "system", "metric", "iteration")


class RunFileWarning(UserWarning):
    """A run file held something that is not what veracity writes: it was left out."""


class ResultsFileError(ValueError):
    """A line of ``results.jsonl`` that is not a result: ``file:line: problem``."""


# Warnings already given: one damaged file, read by several readers of one command, is
# named once.
_warned: set[str] = set()


def warn_once(message: str) -> None:
    """Warn (:class:`RunFileWarning`) with ``message`` unless this process already did."""
    if message not in _warned:
        _warned.add(message)
        warnings.warn(RunFileWarning(message), stacklevel=3)


def read_json_object(path: Path) -> dict[str, Any] | None:
    """The JSON object in the file ``path``; ``None`` when it is missing, unreadable or
    not an object (a run file is written whole or not at all: anything else is damage)."""
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return loaded if isinstance(loaded, dict) else None


def _superseded(handle: BinaryIO) -> tuple[set[int], int]:
    """The numbers of the lines another line of the same key comes after, and how many
    lines there are; lines that are not JSON objects are left to the second pass."""
    last: dict[tuple[str, ...], int] = {}
    superseded: set[int] = set()
    number = 0
    for number, line in enumerate(handle, start=1):
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if not isinstance(row, dict):
            continue
        # No system is written null or "" alike (the store keeps "").
        key = tuple(
            repr(row.get(name) or None if name == "system" else row.get(name))
            for name in RESULT_KEY
        )
        earlier = last.get(key)
        if earlier is not None:
            superseded.add(earlier)
        last[key] = number
    return superseded, number


def read_results(path: Path) -> Iterator[ResultRecord]:
    """The records of a run directory's ``results.jsonl``, in order (the results so far,
    for a run that is still running or was killed); of lines with one key only the last
    is read (a warning counts the others); a line that is not a result raises
    :class:`ResultsFileError` naming the file and the line."""
    file = path / RESULTS
    with file.open("rb") as handle:  # bytes: even an undecodable line is named by number
        superseded, lines = _superseded(handle)
        if superseded:
            warn_once(
                f"{file}: {len(superseded)} duplicate result line(s) skipped (the last line "
                "of each sample, system, metric and iteration is kept)"
            )
        handle.seek(0)
        for number, line in enumerate(handle, start=1):
            if number > lines:
                return  # appended since the first pass: the next reader sees them
            if number in superseded or not line.strip():
                continue
            try:
                yield ResultRecord.model_validate(json.loads(line))
            except UnicodeDecodeError as exc:
                raise ResultsFileError(f"{file}:{number}: {decode_error_message(exc)}") from None
            except ValidationError as exc:
                raise ResultsFileError(
                    f"{file}:{number}: {describe_validation_error(exc)}"
                ) from None
            except ValueError as exc:
                if not line.endswith(b"\n"):
                    return  # the last line, cut off while it was appended: the store has it
                raise ResultsFileError(f"{file}:{number}: {json_error_message(exc)}") from None
