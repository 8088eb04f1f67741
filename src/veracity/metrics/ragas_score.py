"""The ragas score: a weighted mean of faithfulness, precision, recall and relevance."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import ClassVar

from veracity.metrics.answer_relevance import AnswerRelevance
from veracity.metrics.base import Metric, Need, SampleWork, finished
from veracity.metrics.context_precision import ContextPrecision
from veracity.metrics.context_recall import ContextRecall
from veracity.metrics.faithfulness import Faithfulness
from veracity.types import MetricResult, Status, Usage

DEFAULT_WEIGHTS: Mapping[str, float] = MappingProxyType(
    {
        "faithfulness": 0.3,
        "context_precision": 0.2,
        "context_recall": 0.2,
        "answer_relevance": 0.3,
    }
)
COMPONENTS: Mapping[str, Callable[[], Metric]] = MappingProxyType(
    {
        "faithfulness": Faithfulness,
        "context_precision": ContextPrecision,
        "context_recall": ContextRecall,
        "answer_relevance": AnswerRelevance,
    }
)


def weighted_mean(
    scores: Mapping[str, float | None], weights: Mapping[str, float]
) -> tuple[float | None, dict[str, float]]:
    """The mean over the parts that have a score, their weights renormalised to sum 1."""
    present = {
        name: (weight, score)
        for name, weight in weights.items()
        if weight > 0 and (score := scores.get(name)) is not None
    }
    total = sum(weight for weight, _ in present.values())
    if not present:
        return None, {}
    used = {name: weight / total for name, (weight, _) in present.items()}
    return sum(used[name] * score for name, (_, score) in present.items()), used


@dataclass(frozen=True, slots=True)
class RagasScore:
    """Weighted mean of the four RAG metrics (weights configurable). Unscored parts are
    left out and the remaining weights renormalised; with none scored, it is unscored.
    Components the run also scores are computed once and shared."""

    weights: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    name: str = "ragas_score"
    reads_as_probability: ClassVar[bool] = False
    measures_correctness: ClassVar[bool] = False

    def __post_init__(self) -> None:
        unknown = set(self.weights) - set(COMPONENTS)
        if unknown or any(w < 0 for w in self.weights.values()):
            raise ValueError(
                f"ragas_score weights must be non-negative and name only {sorted(COMPONENTS)}"
            )

    @property
    def needs(self) -> frozenset[Need]:
        parts = [COMPONENTS[name]().needs for name, w in self.weights.items() if w > 0]
        return frozenset().union(*parts)

    async def score(self, work: SampleWork) -> MetricResult:
        started = time.perf_counter()
        parts = {
            name: await work.result_of(name, COMPONENTS[name])
            for name, weight in self.weights.items()
            if weight > 0
        }
        # A component the run also reports carries its own usage; one it does not is
        # charged here, so the run's totals stay exact.
        usage = sum((r.usage for n, r in parts.items() if n not in work.metrics), Usage())
        score, used = weighted_mean({n: r.score for n, r in parts.items()}, self.weights)
        details = {
            "components": {
                name: {"score": r.score, "status": r.status.value, "weight": self.weights[name]}
                for name, r in parts.items()
            },
            "weights_used": used,
        }
        if score is None:
            statuses = ", ".join(f"{n} {r.status.value}" for n, r in parts.items())
            why = f"no component was scored ({statuses})"
            return finished(
                self.name, None, Status.SKIPPED, why, started, details=details, usage=usage
            )
        left_out = [n for n in parts if n not in used]
        reason = f"weighted mean of {len(used)} component(s)"
        if left_out:
            reason += f"; left out unscored {', '.join(left_out)} and renormalised the weights"
        return finished(
            self.name, score, Status.SCORED, reason, started, details=details, usage=usage
        )
