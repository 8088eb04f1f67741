"""What a metric says about a sample: a score or an honest status, and the reasons why."""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Status(StrEnum):
    """Why a metric result has the score it has (or has none)."""

    SCORED = "scored"
    NO_CLAIMS = "no_claims"
    MISSING_REFERENCE = "missing_reference"
    NO_CONTEXTS = "no_contexts"
    NO_CITATIONS = "no_citations"
    JUDGE_ERROR = "judge_error"
    UNSUPPORTED_BY_JUDGE = "unsupported_by_judge"
    INVALID_INPUT = "invalid_input"
    SKIPPED = "skipped"


# Statuses that can never carry a score: the judge failed or the metric could not apply.
UNSCORED_STATUSES = frozenset(
    {
        Status.JUDGE_ERROR,
        Status.UNSUPPORTED_BY_JUDGE,
        Status.INVALID_INPUT,
        Status.SKIPPED,
        Status.MISSING_REFERENCE,
        Status.NO_CITATIONS,
    }
)


class Verdict(StrEnum):
    """How a claim stands against the retrieved contexts (and, when they leave it open,
    the conversation before the question: ``supported_by_conversation``)."""

    SUPPORTED = "supported"
    CONTRADICTED = "contradicted"
    NOT_ENOUGH_INFO = "not_enough_info"
    SUPPORTED_BY_CONVERSATION = "supported_by_conversation"


class Attribution(StrEnum):
    """How a claim of an answer that cites stands against its citations: supported by a
    passage it cites, supported only by one it does not cite, or not supported at all."""

    CITED = "cited"
    MISATTRIBUTED = "misattributed"
    UNSUPPORTED = "unsupported"


class Usage(BaseModel):
    """Calls and tokens spent by the judge on one result.

    ``calls`` and the tokens count what was sent to the endpoint (and paid for);
    ``cached_calls`` the replies taken from the response cache instead, at no cost.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_calls: int = 0
    # The part of the counts above that models other than the judge's own spent, by name
    # (a chat judge drawing a decision judge's claims), so that each part is priced at its
    # own model's price. Written only when there is one.
    others: dict[str, Usage] = Field(default_factory=dict, exclude_if=lambda others: not others)

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            calls=self.calls + other.calls,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_calls=self.cached_calls + other.cached_calls,
            others={
                name: self.others.get(name, Usage()) + other.others.get(name, Usage())
                for name in self.others | other.others
            },
        )

    def spent_by(self, model: str) -> Usage:
        """These counts, all of them spent by ``model``, another than the judge's own."""
        plain = self.model_copy(update={"others": {}})
        return plain.model_copy(update={"others": {model: plain}})

    def own(self) -> Usage:
        """The part of these counts that the judge's own model spent."""
        spent = sum(self.others.values(), Usage())
        return Usage(
            calls=self.calls - spent.calls,
            input_tokens=self.input_tokens - spent.input_tokens,
            output_tokens=self.output_tokens - spent.output_tokens,
            cached_calls=self.cached_calls - spent.cached_calls,
        )


class ClaimVerdict(BaseModel):
    """One atomic claim of an answer and the judge's verdict on it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    claim: str
    verdict: Verdict
    reason: str = ""
    evidence: str = ""
    # The judge's probability that the claim is supported, where it has one: the offline
    # judge's model, or an LLM judge's token log-probabilities.
    p_supported: float | None = Field(default=None, ge=0.0, le=1.0)
    # The probability of each verdict (supported, contradicted, not_enough_info), where the
    # judge gives them all: a decision model's answer to the claim's choice question.
    probabilities: dict[str, float] | None = None
    # The judge called the claim supported on an evidence quote that is nowhere in the
    # contexts (kept or downgraded, as the judge's policy says).
    evidence_not_found: bool | None = None
    # The judge's own verdict, where veracity set it aside: a claim that a context states
    # word for word, as one of its sentences, is supported whatever the judge said.
    overruled: Verdict | None = None
    # The judge's verdict on its first look, where a second look (the claim alone, against
    # the one context holding its words) found the support the first missed.
    first_look: Verdict | None = None


class MetricResult(BaseModel):
    """A metric's outcome on one sample: ``score`` in [0, 1] or ``None``, never NaN."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    metric: str
    score: float | None
    status: Status
    reason: str
    details: dict[str, Any] = Field(default_factory=dict)
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0

    @model_validator(mode="after")
    def _score_is_honest(self) -> MetricResult:
        if self.score is not None:
            if not math.isfinite(self.score) or not 0.0 <= self.score <= 1.0:
                raise ValueError(f"{self.metric}: score {self.score!r} is not a number in [0, 1]")
            if self.status in UNSCORED_STATUSES:
                raise ValueError(f"{self.metric}: status {self.status} cannot carry a score")
        elif self.status is Status.SCORED:
            raise ValueError(f"{self.metric}: status 'scored' needs a score")
        if not self.reason:
            raise ValueError(f"{self.metric}: every result needs a reason")
        return self


class ResultRecord(MetricResult):
    """One line of ``results.jsonl``: a metric result keyed by sample, system and iteration."""

    sample_id: str
    system: str | None
    question_type: str | None = None
    iteration: int
    cost_usd: float | None = None
    # P(people call the answer good) from a calibration fitted to their labels (``veracity
    # calibrate``; ``--calibration``), beside the untouched score.
    calibrated: float | None = Field(default=None, ge=0.0, le=1.0)

    @property
    def key(self) -> tuple[str, str | None, str, int]:
        return (self.sample_id, self.system, self.metric, self.iteration)
