"""A run directory: ``run.json``, ``results.jsonl`` and ``summary.json``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from veracity.store.files import dumps, write_json_atomic
from veracity.types import ResultRecord

MANIFEST = "run.json"
RESULTS = "results.jsonl"
SUMMARY = "summary.json"
RECORD_KEY = ("sample_id", "system", "question_type", "metric", "iteration")


class RunDirectoryError(Exception):
    pass


class RunDirectory:
    """Owns the files of one run. Results are appended and flushed one line at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._results: IO[str] | None = None
        self._manifest: dict[str, Any] = {}

    @property
    def results_path(self) -> Path:
        return self.path / RESULTS

    def create(self, manifest: dict[str, Any]) -> None:
        if self.results_path.exists() and self.results_path.stat().st_size > 0:
            raise RunDirectoryError(
                f"{self.path} already holds results; choose a new --out directory "
                "(resuming a run is not supported in this version)"
            )
        self.path.mkdir(parents=True, exist_ok=True)
        self._manifest = dict(manifest)
        write_json_atomic(self.path / MANIFEST, self._manifest)
        self._results = self.results_path.open("w", encoding="utf-8")

    def append(self, record: ResultRecord) -> None:
        if self._results is None:
            raise RunDirectoryError("the run directory is not open for writing")
        row = record.model_dump(mode="json")
        # The key first, so that a line read by eye starts with what it is about.
        keyed = {name: row.pop(name) for name in RECORD_KEY} | row
        self._results.write(dumps(keyed) + "\n")
        self._results.flush()

    def update_manifest(self, **fields: Any) -> None:
        self._manifest.update(fields)
        write_json_atomic(self.path / MANIFEST, self._manifest)

    def write_summary(self, summary: dict[str, Any]) -> None:
        write_json_atomic(self.path / SUMMARY, summary)

    def close(self) -> None:
        if self._results is not None:
            self._results.close()
            self._results = None


def read_results(path: Path) -> Iterator[ResultRecord]:
    """The records of a run directory's ``results.jsonl``, in the order they were written."""
    with (path / RESULTS).open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield ResultRecord.model_validate(json.loads(line))
