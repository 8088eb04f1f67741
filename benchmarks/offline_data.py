"""Shared by the offline-judge scripts: the development sets, the held-out split, the
word-overlap floor, AUROC and balanced accuracy (numpy only), and an optional disk cache
of embeddings so repeated fits do not embed the same sentences again.

The development sets are read where they are (``--data``); nothing is copied.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from veracity.embeddings import Embedder, Matrix
from veracity.metrics.local_signals import answer_overlap
from veracity.prompts import abstains

# Scores as a list or an array: the scripts pass both.
Scores = Sequence[float] | npt.NDArray[np.floating[Any]]

DEFAULT_DATA = Path(__file__).resolve().parent.parent / ".." / "shared" / "data" / "dev"
FIT_SETS = ("halueval_qa", "wice_dev", "begin_dev")
# name -> the label field; truthfulqa has no contexts: its reference is the context.
ALL_SETS = {"halueval_qa": "faithful", "wice_dev": "faithful", "begin_dev": "faithful",
            "truthfulqa_pairs": "correct", "summedits_dev": "faithful"}  # fmt: skip
# Multi-turn RAG answers, labelled by construction from MTRAG-UN (which labels
# answerability, not faithfulness): an answerable turn's reviewed reference answer with
# its passages is faithful; an unanswerable turn's reference that abstains ("I'm sorry, I
# don't have information about …") is faithful by veracity's policy (saying nothing
# unsupported is faithful: SPEC, faithfulness); the reference answer of an answerable
# turn of another conversation, given this turn's passages, is not. Partial and
# underspecified turns, and unanswerable turns whose reference does not abstain, are left
# out; a conversation stays within one half. Only its abstentions go into a pooled fit
# (:func:`in_pooled_fit`): what the labelled sets lack is abstentions in RAG answers; the
# rest is constructed, and there to check that a calibration does no harm.
MTRAG_CONSTRUCTED = "mtragun_constructed"
Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Row:
    set: str
    id: str
    question: str
    answer: str
    contexts: tuple[str, ...]
    label: bool
    split: str  # "fit" or "test"


def context_digest(contexts: Sequence[str]) -> bytes:
    """A hash of a row's contexts: splits and folds by it keep the answers that share a
    passage (a HaluEval pair, BEGIN's several systems) on the same side."""
    return hashlib.sha256(json.dumps(list(contexts)).encode()).digest()


def split_of(contexts: Sequence[str]) -> str:
    """Half the rows, by :func:`context_digest`."""
    return "test" if context_digest(contexts)[0] % 2 else "fit"


def _half(key: str) -> str:
    return "test" if hashlib.sha256(key.encode()).digest()[0] % 2 else "fit"


def _mtragun_constructed(data_dir: Path) -> list[Row]:
    """The rows of :data:`MTRAG_CONSTRUCTED`, in a fixed order."""
    with (data_dir / "mtragun_dev.jsonl").open(encoding="utf-8") as handle:
        raw = [json.loads(line) for line in handle]
    kept = [
        r for r in raw
        if r["label"].get("answerability") == "ANSWERABLE"
        or (r["label"].get("answerability") == "UNANSWERABLE" and abstains(r.get("answer") or ""))
    ]  # fmt: skip
    rows = [
        Row(MTRAG_CONSTRUCTED, r["id"], r.get("question") or "", r.get("answer") or "",
            tuple(r.get("contexts") or ()), True, _half(r["meta"]["conversation_id"]))
        for r in kept
    ]  # fmt: skip
    answerable = sorted(
        (r for r in kept if r["label"]["answerability"] == "ANSWERABLE" and r.get("contexts")),
        key=lambda r: hashlib.sha256(r["id"].encode()).digest(),
    )
    for i, row in enumerate(answerable):
        conversation = row["meta"]["conversation_id"]
        other = next(
            o for o in answerable[i + 1 :] + answerable[:i]
            if o["meta"]["conversation_id"] != conversation
        )  # fmt: skip
        rows.append(Row(MTRAG_CONSTRUCTED, f"{row['id']}::swapped", row.get("question") or "",
                        other.get("answer") or "", tuple(row["contexts"]), False,
                        _half(conversation)))  # fmt: skip
    return rows


def in_pooled_fit(row: Row) -> bool:
    """Whether a fit-half row goes into a scoring fitted on all sets: every labelled one;
    of :data:`MTRAG_CONSTRUCTED`, the abstentions only."""
    return row.set != MTRAG_CONSTRUCTED or not row.contexts


def load_set(data_dir: Path, name: str, limit: int | None = None) -> list[Row]:
    if name == MTRAG_CONSTRUCTED:
        found = _mtragun_constructed(data_dir)
        return found[:limit] if limit else found
    rows = []
    with (data_dir / f"{name}.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            raw: dict[str, Any] = json.loads(line)
            label = raw["label"].get(ALL_SETS[name])
            if label is None:
                continue
            contexts = tuple(raw.get("contexts") or ())
            if not contexts and raw.get("ground_truth"):
                contexts = (raw["ground_truth"],)
            rows.append(
                Row(
                    name,
                    raw["id"],
                    raw.get("question") or "",
                    raw["answer"] or "",
                    contexts,
                    bool(label),
                    split_of(contexts),
                )
            )
    return rows[:limit] if limit else rows


def floor_score(answer: str, contexts: Sequence[str]) -> float:
    """The floor: the share of the answer's words (lower-cased) found in the contexts —
    the word-overlap signal every faithfulness result carries."""
    return answer_overlap(answer, contexts)


def auroc(scores: Scores, labels: Sequence[bool] | npt.NDArray[np.bool_]) -> float:
    """Area under the ROC curve (ties count half), by the rank-sum formula."""
    s, y = np.asarray(scores, dtype=np.float64), np.asarray(labels, dtype=bool)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if not n_pos or not n_neg:
        return float("nan")
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(len(s), dtype=np.float64)
    sorted_s = s[order]
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and sorted_s[j + 1] == sorted_s[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def auroc_difference(
    a: Scores, b: Scores, labels: Sequence[bool] | npt.NDArray[np.bool_], reps: int = 2000
) -> tuple[float, float, float]:
    """AUROC(a) − AUROC(b) on the same rows, with a 95 % paired bootstrap interval
    (rows resampled with replacement, seeded)."""
    x, y, lab = np.asarray(a), np.asarray(b), np.asarray(labels, dtype=bool)
    rng = np.random.default_rng(0)
    draws = []
    for _ in range(reps):
        pick = rng.integers(0, len(lab), len(lab))
        if lab[pick].all() or not lab[pick].any():
            continue
        draws.append(auroc(x[pick], lab[pick]) - auroc(y[pick], lab[pick]))
    low, high = np.percentile(draws, [2.5, 97.5])
    return auroc(x, lab) - auroc(y, lab), float(low), float(high)


def balanced_accuracy(predicted: Sequence[bool], labels: Sequence[bool]) -> float:
    p, y = np.asarray(predicted, dtype=bool), np.asarray(labels, dtype=bool)
    return float(((p & y).sum() / max(1, y.sum()) + (~p & ~y).sum() / max(1, (~y).sum())) / 2)


def best_threshold(scores: Sequence[float], labels: Sequence[bool]) -> float:
    """The threshold t (predict positive when score ≥ t) with the best balanced accuracy."""
    candidates = sorted(set(scores))
    return max(candidates, key=lambda t: balanced_accuracy([s >= t for s in scores], labels))


class DiskCachedEmbedder:
    """An embedder that keeps every vector it computed in ``path`` (an ``.npz`` file)."""

    def __init__(self, inner: Embedder, path: Path) -> None:
        self.inner, self.path = inner, path
        self._cache: dict[str, npt.NDArray[np.float32]] = {}
        if path.exists():
            with np.load(path) as data:
                self._cache = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))

    @property
    def name(self) -> str:
        return self.inner.name

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()

    async def embed(self, texts: Sequence[str]) -> Matrix:
        keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
        todo = sorted({(k, t) for k, t in zip(keys, texts, strict=True) if k not in self._cache})
        if todo:
            vectors = await self.inner.embed([t for _, t in todo])
            self._cache.update({k: vectors[i] for i, (k, _) in enumerate(todo)})
        if not keys:
            return np.zeros((0, 384), dtype=np.float32)
        return np.stack([self._cache[k] for k in keys]).astype(np.float32)

    def save(self) -> None:
        keys = list(self._cache)
        vectors = np.stack([self._cache[k] for k in keys]) if keys else np.zeros((0, 1))
        np.savez(self.path, keys=np.array(keys), vectors=vectors)

    async def aclose(self) -> None:
        await self.inner.aclose()
