"""Context precision: were the relevant chunks retrieved, and ranked first?"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from veracity.metrics.base import Need, SampleWork, finished, has_contexts, judge_error, unscored
from veracity.types import MetricResult, Status


def average_precision(relevant: Sequence[bool]) -> float:
    """Σ_k precision@k · rel_k / (number of relevant chunks); 0.0 when none is relevant."""
    hits, total = 0, 0.0
    for k, is_relevant in enumerate(relevant, start=1):
        if is_relevant:
            hits += 1
            total += hits / k
    return total / hits if hits else 0.0


def soft_average_precision(p_relevant: Sequence[float | None]) -> float:
    """:func:`average_precision` with each chunk relevant by its probability: Σ_k
    (Σ_{i≤k} p_i / k) · p_k / Σ p_k; 0.0 when every probability is 0."""
    weights = [p or 0.0 for p in p_relevant]
    hits, total = 0.0, 0.0
    for k, p in enumerate(weights, start=1):
        hits += p
        total += p * hits / k
    return total / hits if hits > 0 else 0.0


@dataclass(frozen=True, slots=True)
class ContextPrecision:
    """One batched call judges every chunk relevant or not (0–100 and a reason); the
    score is rank-aware average precision. The reference, when present, tells the judge
    what a useful chunk leads to."""

    name: str = "context_precision"
    reads_as_probability: ClassVar[bool] = True
    measures_correctness: ClassVar[bool] = False
    needs: frozenset[Need] = frozenset()

    async def score(self, work: SampleWork) -> MetricResult:
        started = time.perf_counter()
        sample = work.sample
        if not has_contexts(sample):
            return unscored(
                self.name,
                Status.NO_CONTEXTS,
                "no chunks were retrieved, so precision is undefined",
                started,
            )
        outcome = await work.judge.judge_chunks(
            sample.question,
            sample.contexts,
            sample.reference,
            iteration=work.iteration,
            history=sample.history,
        )
        if outcome.value is None:
            return judge_error(self.name, "chunk relevance", outcome, outcome.usage, started)
        relevant = [chunk.relevant for chunk in outcome.value]
        score = average_precision(relevant)
        n_relevant = sum(relevant)
        p_relevant = [chunk.p_relevant for chunk in outcome.value]
        # Unmeasured against labels, so beside the score rather than in its place.
        expected = (
            {"expected_average_precision": soft_average_precision(p_relevant)}
            if all(p is not None for p in p_relevant)
            else {}
        )
        return finished(
            self.name,
            score,
            Status.SCORED,
            f"{n_relevant} of {len(relevant)} chunk(s) relevant; average precision {score:.3f}",
            started,
            details={
                "chunks": [
                    chunk.model_dump(mode="json", exclude_none=True) for chunk in outcome.value
                ],
                "relevant_fraction": n_relevant / len(relevant),
                "n_relevant": n_relevant,
                **expected,
                **({"notes": list(outcome.notes)} if outcome.notes else {}),
            },
            usage=outcome.usage,
            judged=(outcome,),
        )
