"""Context recall: how much of the reference answer the retrieved contexts support."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, ClassVar

from veracity.judges import JudgeOutcome
from veracity.metrics.base import (
    Need,
    SampleWork,
    finished,
    has_contexts,
    has_reference,
    judge_error,
    missing_reference,
)
from veracity.types import MetricResult, Status, Usage, Verdict


@dataclass(frozen=True, slots=True)
class ContextRecall:
    """Statements are extracted from the reference and each judged attributable to the
    contexts or not; score = attributed / statements. The verification call is shared
    with faithfulness when both run."""

    name: str = "context_recall"
    reads_as_probability: ClassVar[bool] = True
    measures_correctness: ClassVar[bool] = False
    needs: frozenset[Need] = frozenset({Need.REFERENCE_STATEMENTS, Need.VERDICTS})

    async def score(self, work: SampleWork) -> MetricResult:
        started = time.perf_counter()
        sample = work.sample
        if not has_reference(sample):
            return missing_reference(self.name, started)
        extracted = await work.statements()
        usage = work.charge(extracted)
        if extracted.value is None:
            return judge_error(self.name, "statement extraction", extracted, usage, started)
        statements = extracted.value
        if not statements:
            return self._result(1.0, Status.NO_CLAIMS, "the reference makes no statement", [],
                                usage, started, judged=(extracted,))  # fmt: skip
        if not has_contexts(sample):
            rows = [
                {"statement": s, "attributed": False, "reason": "no contexts were retrieved"}
                for s in statements
            ]
            return self._result(
                0.0,
                Status.NO_CONTEXTS,
                f"no contexts retrieved: none of {len(statements)} statement(s) is attributable",
                rows,
                usage,
                started,
                judged=(extracted,),
            )
        shared = await work.verdicts()
        usage += work.charge(shared)
        if shared.value is None:
            return judge_error(
                self.name, "statement attribution", shared, usage, started,
                before=(extracted,), statements=list(statements),
            )  # fmt: skip
        rows = []
        for statement in statements:
            verdict = shared.value[statement]
            rows.append(
                {
                    "statement": statement,
                    "attributed": verdict.verdict is Verdict.SUPPORTED,
                    "verdict": verdict.verdict.value,
                    "reason": verdict.reason,
                    "evidence": verdict.evidence,
                }
            )
        attributed = sum(row["attributed"] is True for row in rows)
        return self._result(
            attributed / len(rows),
            Status.SCORED,
            f"{attributed} of {len(rows)} reference statement(s) attributable to the contexts",
            rows,
            usage,
            started,
            shared.notes,
            (extracted, shared),
        )

    def _result(
        self,
        score: float,
        status: Status,
        reason: str,
        rows: list[dict[str, object]],
        usage: Usage,
        started: float,
        notes: tuple[str, ...] = (),
        judged: tuple[JudgeOutcome[Any], ...] = (),
    ) -> MetricResult:
        details: dict[str, object] = {"statements": rows, "n_statements": len(rows)}
        if notes:
            details["notes"] = list(notes)
        return finished(
            self.name, score, status, reason, started,
            details=details, usage=usage, judged=judged,
        )  # fmt: skip
