"""Reports: the summary of a run, on disk and on screen."""

from veracity.report.console import print_summary
from veracity.report.summary import NO_SYSTEM, OVERALL, SummaryBuilder
from veracity.report.thresholds import ThresholdCheck, check_thresholds, parse_thresholds

__all__ = [
    "NO_SYSTEM",
    "OVERALL",
    "SummaryBuilder",
    "ThresholdCheck",
    "check_thresholds",
    "parse_thresholds",
    "print_summary",
]
