"""What every embedder offers, and the vector arithmetic the metrics need."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float32]
"""Embeddings: one row per text, float32, each row of unit length or all zeros."""


class ModelOutputError(RuntimeError):
    """A model returned something unusable (NaN or infinite values, a wrong shape)."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors.

    ``embed`` returns an ``(n, d)`` float32 matrix whose rows are L2-normalised; a text
    that is empty or only whitespace gets an all-zero row (never NaN) and is not sent to
    the model. ``describe`` names the model and its settings, never a secret.
    """

    @property
    def name(self) -> str: ...

    def describe(self) -> dict[str, Any]: ...

    async def embed(self, texts: Sequence[str]) -> Matrix: ...

    async def aclose(self) -> None: ...


@runtime_checkable
class CutsLongTexts(Protocol):
    """An embedder whose model reads only the start of a long text, and says which texts
    it cut (a local model; an embeddings API refuses an over-long text instead)."""

    async def cut(self, texts: Sequence[str]) -> tuple[bool, ...]: ...


async def cut_texts(embedder: Embedder, texts: Sequence[str]) -> tuple[bool, ...]:
    """For each text, whether ``embedder``'s vector of it stands for its start only."""
    if isinstance(embedder, CutsLongTexts):
        return await embedder.cut(texts)
    return tuple(False for _ in texts)


def is_blank(text: str) -> bool:
    """Empty or only whitespace: such a text embeds as zeros without asking a model."""
    return not text.strip()


def normalize_rows(matrix: npt.ArrayLike) -> Matrix:
    """``matrix`` as float32 with every row scaled to unit length; zero rows stay zero.

    Raises :class:`ModelOutputError` if any value is NaN or infinite, so a broken model
    output never turns into a score.
    """
    rows = np.asarray(matrix, dtype=np.float32)
    if rows.ndim != 2:
        raise ModelOutputError(f"expected a 2-D matrix of embeddings, got shape {rows.shape}")
    if not np.isfinite(rows).all():
        bad = int((~np.isfinite(rows).all(axis=1)).sum())
        raise ModelOutputError(f"the model returned NaN or infinite values in {bad} vector(s)")
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    safe = np.where(norms > 0, norms, np.float32(1.0))
    return np.asarray(rows / safe, dtype=np.float32)


def cosine(a: npt.ArrayLike, b: npt.ArrayLike) -> float:
    """Cosine similarity of two L2-normalised vectors (their dot product); 0.0 if either
    is all zeros (an empty text)."""
    u = np.asarray(a, dtype=np.float32).ravel()
    v = np.asarray(b, dtype=np.float32).ravel()
    if u.shape != v.shape:
        raise ValueError(f"vectors of different sizes: {u.shape[0]} and {v.shape[0]}")
    if not u.any() or not v.any():
        return 0.0
    return float(np.dot(u, v))


# A follow-up question means mostly what it says itself: the earlier turn it leans on adds
# a quarter of its direction. Reading the two as one text made an answer to the earlier
# question look as relevant as one to this (docs/offline_judge.md, "Conversations").
EARLIER_TURN_WEIGHT = 0.25


def question_vector(question: npt.ArrayLike, earlier: npt.ArrayLike | None) -> npt.NDArray[Any]:
    """A question's embedding, leaning on the earlier turn's (:data:`EARLIER_TURN_WEIGHT`)
    when the question follows up on one."""
    unit = _unit(np.asarray(question, dtype=np.float64))
    if earlier is None:
        return unit
    return unit + EARLIER_TURN_WEIGHT * _unit(np.asarray(earlier, dtype=np.float64))


def _unit(vector: npt.NDArray[Any]) -> npt.NDArray[Any]:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector


def clipped_cosine(a: npt.ArrayLike, b: npt.ArrayLike) -> float:
    """:func:`cosine` clipped to ``[0, 1]``: opposite meanings score 0, not below, and
    rounding never pushes identical texts past 1."""
    return min(1.0, max(0.0, cosine(a, b)))
