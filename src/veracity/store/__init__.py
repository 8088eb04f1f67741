"""Where results live: the run directory and its files."""

from veracity.store.attempts import COMPLETED, FAILED, RUNNING, timestamp
from veracity.store.files import dumps, write_json_atomic, write_text_atomic
from veracity.store.reading import (
    RESULTS,
    ResultsFileError,
    RunFileWarning,
    read_manifest,
    read_results,
)
from veracity.store.run_dir import (
    BATCHES,
    DATABASE,
    MANIFEST,
    REPLIES,
    REPORT,
    SUMMARY,
    RunDirectory,
    RunDirectoryError,
    results_done,
    writing,
)

__all__ = [
    "BATCHES",
    "COMPLETED",
    "DATABASE",
    "FAILED",
    "MANIFEST",
    "REPLIES",
    "REPORT",
    "RESULTS",
    "RUNNING",
    "SUMMARY",
    "ResultsFileError",
    "RunDirectory",
    "RunDirectoryError",
    "RunFileWarning",
    "dumps",
    "read_manifest",
    "read_results",
    "results_done",
    "timestamp",
    "write_json_atomic",
    "write_text_atomic",
    "writing",
]
