"""Data types shared by every layer of veracity."""

from veracity.types.judgements import (
    AnswerClass,
    ChunkJudgement,
    Classification,
    CriterionScore,
    DimensionScore,
    FactualGrades,
    GeneratedQuestions,
    RelevanceRating,
    Rubric,
    RubricDimension,
)
from veracity.types.results import (
    UNSCORED_STATUSES,
    Attribution,
    ClaimVerdict,
    MetricResult,
    ResultRecord,
    Status,
    Usage,
    Verdict,
)
from veracity.types.sample import ROLES, Citation, Sample, Turn, TurnRole
from veracity.types.tokens import TokenLogprob

__all__ = [
    "ROLES",
    "UNSCORED_STATUSES",
    "AnswerClass",
    "Attribution",
    "ChunkJudgement",
    "Citation",
    "ClaimVerdict",
    "Classification",
    "CriterionScore",
    "DimensionScore",
    "FactualGrades",
    "GeneratedQuestions",
    "MetricResult",
    "RelevanceRating",
    "ResultRecord",
    "Rubric",
    "RubricDimension",
    "Sample",
    "Status",
    "TokenLogprob",
    "Turn",
    "TurnRole",
    "Usage",
    "Verdict",
]
