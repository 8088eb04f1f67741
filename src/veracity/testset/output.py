"""Writing a test set: veracity's JSONL format, to a temporary file renamed into place."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path
from typing import Any

from veracity.types import Sample


def sample_record(sample: Sample) -> dict[str, Any]:
    """One JSONL row: every canonical field, in the documented order (``reference`` may
    be null, ``answer`` may be empty: the system under test answers later); ``history``
    only when the sample has one, a turn without a role as its plain text."""
    record: dict[str, Any] = {
        "id": sample.id,
        "question": sample.question,
        "contexts": list(sample.contexts),
        "answer": sample.answer,
        "reference": sample.reference,
    }
    if sample.history:
        record["history"] = [
            turn.content if turn.role is None else {"role": turn.role, "content": turn.content}
            for turn in sample.history
        ]
    return record | {
        "question_type": sample.question_type,
        "system": sample.system,
        "metadata": sample.metadata,
    }


def write_jsonl(path: str | Path, samples: Iterable[Sample]) -> int:
    """Write ``samples`` to ``path`` (one JSON object a line) and return how many.

    The rows go to a temporary file next to ``path`` that replaces it only once complete:
    an interrupted write never leaves a half-written test set.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    count = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as stream:
            for sample in samples:
                stream.write(json.dumps(sample_record(sample), ensure_ascii=False) + "\n")
                count += 1
            stream.flush()
            os.fsync(stream.fileno())
        Path(temp).chmod(0o644)  # mkstemp makes it private; a test set is an ordinary file
        Path(temp).replace(target)
    except BaseException:
        with suppress(OSError):
            Path(temp).unlink()
        raise
    return count
