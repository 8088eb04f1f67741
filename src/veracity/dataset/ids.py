"""Stable identifiers: sample ids for rows without one, and a fingerprint of the file."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from veracity.dataset.errors import DatasetError
from veracity.types.sample import Turn

_CHUNK = 1 << 20


def _canonical(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=True, sort_keys=True, separators=(",", ":")).encode()


def stable_sample_id(
    question: str,
    answer: str,
    contexts: Sequence[str],
    system: str | None,
    history: Sequence[Turn] = (),
) -> str:
    """A stable id for a row that has none: the same content always gives the same id.

    The first 16 hex digits of the SHA-256 of a canonical JSON encoding of the question,
    answer, contexts (in order), system and, when there is one, history (each turn's role
    and content, in order). A sample without history is encoded as before history
    existed, so its id is what it always was and earlier runs resume.
    """
    payload: dict[str, object] = {
        "answer": answer,
        "contexts": list(contexts),
        "question": question,
        "system": system,
    }
    if history:
        payload["history"] = [[turn.role, turn.content] for turn in history]
    return hashlib.sha256(_canonical(payload)).hexdigest()[:16]


def sample_key_digest(sample_id: str, system: str | None) -> int:
    """An 8-byte digest of (id, system), cheap to remember for duplicate detection."""
    id_bytes = sample_id.encode("utf-8", "surrogatepass")
    key = len(id_bytes).to_bytes(8, "big") + id_bytes
    key += b"\x00" if system is None else b"\x01" + system.encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big")


def dataset_fingerprint(path: str | Path) -> str:
    """The SHA-256 (hex) of the file's bytes, read in chunks."""
    return dataset_identity(path)[0]


def dataset_identity(path: str | Path, first: int | None = None) -> tuple[str, int]:
    """The SHA-256 (hex) of the file's bytes (only its ``first`` bytes, if given) and how
    many bytes that was, read in one pass so the two agree."""
    sha = hashlib.sha256()
    size = 0
    try:
        with Path(path).open("rb") as f:
            while chunk := f.read(_CHUNK if first is None else min(_CHUNK, first - size)):
                sha.update(chunk)
                size += len(chunk)
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read the file: {exc.strerror or exc}") from exc
    return sha.hexdigest(), size


def grew_by_appending(path: str | Path, sha256: str, size: int) -> bool:
    """Whether the file ``path`` is a file of ``size`` bytes hashing to ``sha256`` with
    whole lines appended: its first ``size`` bytes unchanged and ending a line, so every
    row read before is still there, the same."""
    if size:
        try:
            with Path(path).open("rb") as f:
                f.seek(size - 1)
                if f.read(1) != b"\n":
                    return False
        except OSError:
            return False
    found, read = dataset_identity(path, size)
    return read == size and found == sha256
