"""Question keys: two questions that differ only in case, spacing or punctuation are one."""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Sequence


def normalise_question(question: str) -> str:
    """The question compared for duplicates: Unicode-normalised (NFKC), case-folded, with
    every run of punctuation and whitespace collapsed to one space, stripped.

    ``"What is  the warranty?"`` and ``"what is the WARRANTY"`` give the same text.
    """
    text = unicodedata.normalize("NFKC", question).casefold()
    kept = [" " if unicodedata.category(ch)[0] in "PZC" else ch for ch in text]
    return " ".join("".join(kept).split())


def question_digest(question: str, history: Sequence[str] = ()) -> int:
    """An 8-byte digest of the normalised question: cheap to remember for de-duplication.

    A question asked after earlier turns (``history``, their texts oldest first) is that
    question in that conversation: "And when?" after two different turns is two questions.
    Without history the digest is the question's alone, as it always was.
    """
    texts = [normalise_question(question), *(normalise_question(t) for t in history)]
    data = "\x00".join(texts).encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big")


def seeded_priority(seed: int, digest: int) -> int:
    """A pseudo-random 8-byte rank of a question under ``seed``.

    It depends on the question and the seed only, not on where the row is in the file:
    keeping the rows of lowest rank is a sample that the same seed always reproduces.
    """
    data = f"{seed}:".encode() + digest.to_bytes(8, "big")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8, person=b"vrc-smpl").digest(), "big")
