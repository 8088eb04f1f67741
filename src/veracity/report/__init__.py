"""Reports: the summary of a run, its analysis and comparisons, on disk and on screen."""

from typing import TYPE_CHECKING

from veracity._lazy import lazy_exports

__all__ = [
    "DEFAULT_MAX_ERROR_RATE",
    "DEFAULT_THRESHOLD",
    "NO_SYSTEM",
    "NO_TYPE",
    "OVERALL",
    "AnalysisBuilder",
    "CompareError",
    "Comparison",
    "ErrorRateCheck",
    "MetricComparison",
    "ReportError",
    "SummaryBuilder",
    "ThresholdCheck",
    "check_error_rate",
    "check_thresholds",
    "checked_error_rate",
    "compare_records",
    "compare_runs",
    "compare_systems",
    "load_summary",
    "parse_thresholds",
    "print_comparison",
    "print_report",
    "print_summary",
    "summarize",
    "thresholds_from_settings",
]

if TYPE_CHECKING:
    from veracity.report.analysis import AnalysisBuilder
    from veracity.report.compare import (
        CompareError,
        Comparison,
        MetricComparison,
        compare_records,
        compare_runs,
        compare_systems,
    )
    from veracity.report.console import print_summary
    from veracity.report.console_compare import print_comparison
    from veracity.report.console_report import print_report
    from veracity.report.load import ReportError, load_summary
    from veracity.report.summary import (
        DEFAULT_THRESHOLD,
        NO_SYSTEM,
        NO_TYPE,
        OVERALL,
        SummaryBuilder,
        summarize,
    )
    from veracity.report.thresholds import (
        DEFAULT_MAX_ERROR_RATE,
        ErrorRateCheck,
        ThresholdCheck,
        check_error_rate,
        check_thresholds,
        checked_error_rate,
        parse_thresholds,
        thresholds_from_settings,
    )
else:
    __getattr__, __dir__ = lazy_exports(__name__, __file__, __all__)
