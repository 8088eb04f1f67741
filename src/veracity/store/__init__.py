"""Where results live: the run directory and its files."""

from veracity.store.attempts import RUNNING, timestamp
from veracity.store.files import dumps, write_json_atomic, write_text_atomic
from veracity.store.run_dir import (
    BATCHES,
    DATABASE,
    MANIFEST,
    REPLIES,
    REPORT,
    RESULTS,
    SUMMARY,
    ResultsFileError,
    RunDirectory,
    RunDirectoryError,
    read_results,
    results_done,
    writing,
)

__all__ = [
    "BATCHES",
    "DATABASE",
    "MANIFEST",
    "REPLIES",
    "REPORT",
    "RESULTS",
    "RUNNING",
    "SUMMARY",
    "ResultsFileError",
    "RunDirectory",
    "RunDirectoryError",
    "dumps",
    "read_results",
    "results_done",
    "timestamp",
    "write_json_atomic",
    "write_text_atomic",
    "writing",
]
