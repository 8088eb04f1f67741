"""Data types shared by every layer of veracity."""

from veracity.types.results import (
    UNSCORED_STATUSES,
    ClaimVerdict,
    MetricResult,
    ResultRecord,
    Status,
    Usage,
    Verdict,
)
from veracity.types.sample import Sample

__all__ = [
    "UNSCORED_STATUSES",
    "ClaimVerdict",
    "MetricResult",
    "ResultRecord",
    "Sample",
    "Status",
    "Usage",
    "Verdict",
]
