"""What a judge answers, beyond claim verdicts: the value types of judge outcomes."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ChunkJudgement(_Frozen):
    """Is one retrieved chunk relevant to the question (and useful for the reference)?"""

    index: int = Field(ge=0, description="0-based position of the chunk in retrieval order")
    relevant: bool
    relevance: int = Field(ge=0, le=100)
    reason: str = ""
    # P(relevant), where the judge's token log-probabilities give one.
    p_relevant: float | None = Field(default=None, ge=0.0, le=1.0)


class GeneratedQuestions(_Frozen):
    """Questions the answer would answer, and whether the answer is noncommittal."""

    questions: tuple[str, ...]
    noncommittal: bool
    reason: str = ""


class RelevanceRating(_Frozen):
    """A direct 0–1 rating of how well an answer addresses its question."""

    score: float = Field(ge=0.0, le=1.0)
    reason: str = ""
    # The probability-weighted rating on 0–1, where the judge's token log-probabilities
    # give one (a rating written as one token).
    expected: float | None = Field(default=None, ge=0.0, le=1.0)
    # A decision model's probability for each level, by the level's label.
    probabilities: dict[str, float] | None = None


class CriterionScore(_Frozen):
    """One G-Eval criterion, scored 0–100 by the judge, with its reasoning."""

    score: int = Field(ge=0, le=100)
    reasoning: str = ""
    # The probability-weighted score, where the judge's token log-probabilities give one.
    expected: float | None = Field(default=None, ge=0.0, le=100.0)
    # A decision model's probability for each level, by the level's label.
    probabilities: dict[str, float] | None = None


class FactualGrades(_Frozen):
    """The judge's criterion scores; veracity computes the weighted score itself."""

    correctness: CriterionScore
    completeness: CriterionScore
    consistency: CriterionScore


class AnswerClass(StrEnum):
    CORRECT = "correct"
    WRONG = "wrong"
    DONT_KNOW = "dont_know"


class Classification(_Frozen):
    label: AnswerClass
    reason: str = ""
    # The probability of each label, where the judge's token log-probabilities give them.
    probabilities: dict[AnswerClass, float] | None = None


class RubricDimension(_Frozen):
    """One axis of a rubric: a name, what it measures, and what each level 1–5 means."""

    name: str = Field(min_length=1, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    description: str
    levels: dict[int, str]

    @model_validator(mode="after")
    def _five_levels(self) -> RubricDimension:
        if set(self.levels) != {1, 2, 3, 4, 5}:
            raise ValueError(f"dimension {self.name!r}: levels must describe exactly 1 to 5")
        return self


class Rubric(_Frozen):
    """A rubric: dimensions scored 1–5 in one call; it passes when every dimension
    reaches its minimum (``pass_min``: per dimension, default ``default_pass_min``)."""

    name: str = Field(min_length=1)
    dimensions: tuple[RubricDimension, ...] = Field(min_length=1)
    default_pass_min: int = Field(default=4, ge=1, le=5)
    pass_min: dict[str, int] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> Rubric:
        names = [d.name for d in self.dimensions]
        if len(set(names)) != len(names):
            raise ValueError(f"rubric {self.name!r}: dimension names must be unique")
        unknown = set(self.pass_min) - set(names)
        if unknown:
            raise ValueError(f"rubric {self.name!r}: pass_min names unknown {sorted(unknown)}")
        if any(not 1 <= v <= 5 for v in self.pass_min.values()):
            raise ValueError(f"rubric {self.name!r}: pass_min values must be 1 to 5")
        return self

    def minimum(self, dimension: str) -> int:
        return self.pass_min.get(dimension, self.default_pass_min)


class DimensionScore(_Frozen):
    name: str
    score: int = Field(ge=1, le=5)
    reasoning: str = ""
    # The probability-weighted score, where the judge's token log-probabilities give one.
    expected: float | None = Field(default=None, ge=1.0, le=5.0)
    # A decision model's probability for each level, by the level's label.
    probabilities: dict[str, float] | None = None
