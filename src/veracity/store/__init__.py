"""Where results live: the run directory and its files."""

from typing import TYPE_CHECKING

from veracity._lazy import lazy_exports

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
    "Manifest",
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

if TYPE_CHECKING:
    from veracity.store.attempts import COMPLETED, FAILED, RUNNING, timestamp
    from veracity.store.files import dumps, write_json_atomic, write_text_atomic
    from veracity.store.layout import (
        BATCHES,
        DATABASE,
        MANIFEST,
        REPLIES,
        REPORT,
        RESULTS,
        SUMMARY,
    )
    from veracity.store.manifest import Manifest, read_manifest
    from veracity.store.reading import ResultsFileError, RunFileWarning, read_results
    from veracity.store.run_dir import (
        RunDirectory,
        RunDirectoryError,
        results_done,
        writing,
    )
else:
    __getattr__, __dir__ = lazy_exports(__name__, __file__, __all__)
