"""Reading a run directory's summary back, re-summarising its results when needed."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from veracity.report.summary import summarize
from veracity.report.summary_file import as_read, summary_model
from veracity.report.thresholds import thresholds_from_settings
from veracity.store import (
    FAILED,
    MANIFEST,
    RESULTS,
    RUNNING,
    SUMMARY,
    Manifest,
    ResultsFileError,
    read_manifest,
    read_results,
    writing,
)
from veracity.store.reading import read_json_object, warn_once


class ReportError(ValueError):
    """A run directory that cannot be reported on."""


def is_current(summary: Mapping[str, Any]) -> bool:
    """Whether ``summary`` has every section this version writes."""
    metrics = summary.get("metrics")
    return (
        isinstance(metrics, Mapping)
        and isinstance(summary.get("analysis"), Mapping)
        and all(
            isinstance(groups, Mapping)
            and "ci95" in groups.get("overall", {})
            and "by_question_type" in groups
            for groups in metrics.values()
        )
    )


def given_thresholds(summary: Mapping[str, Any] | None, manifest: Manifest) -> dict[str, float]:
    """The thresholds a run used: those its summary says were given, else its settings'."""
    found = thresholds_from_settings(manifest.settings)
    metrics = (summary or {}).get("metrics")
    if isinstance(metrics, Mapping):
        for metric, groups in metrics.items():
            threshold = groups.get("threshold") if isinstance(groups, Mapping) else None
            if (
                isinstance(threshold, Mapping)
                and threshold.get("source") == "given"
                and isinstance(threshold.get("value"), int | float)
            ):
                found[metric] = float(threshold["value"])
    return found


def current_summary(run_dir: Path) -> dict[str, Any] | None:
    """``summary.json`` when it is of this version and whole, read through its typed model
    (:mod:`~veracity.report.summary_file`), else ``None`` (a damaged one with a warning)."""
    summary = read_json_object(run_dir / SUMMARY)
    if summary is None or not is_current(summary):
        return None
    typed = summary_model(summary)
    if typed is None:
        warn_once(
            f"{run_dir / SUMMARY} holds values of a wrong type: the summary is rebuilt "
            f"from {RESULTS}"
        )
        return None
    return typed.model_dump(mode="json")


def load_summary(run_dir: Path) -> tuple[dict[str, Any], bool]:
    """The run's summary, and whether it was rebuilt from ``results.jsonl`` (because
    ``summary.json`` is missing, unreadable or from an older version). Nothing is written.
    """
    if not run_dir.is_dir():
        raise ReportError(f"run directory not found: {run_dir}")
    summary = current_summary(run_dir)
    if summary is not None:
        return summary, False
    if not (run_dir / RESULTS).is_file():
        raise ReportError(f"{run_dir} holds neither a readable {SUMMARY} nor {RESULTS}")
    summary = read_json_object(run_dir / SUMMARY)  # an old one still says which thresholds
    manifest = read_manifest(run_dir / MANIFEST)
    try:
        rebuilt = summarize(
            read_results(run_dir),
            manifest.metrics,
            given_thresholds(summary, manifest),
            bad_rows=manifest.bad_rows,
        )
    except ResultsFileError as exc:  # names the file and line already
        raise ReportError(str(exc)) from exc
    except ValueError as exc:
        raise ReportError(f"{run_dir / RESULTS} cannot be read: {exc}") from exc
    return as_read(rebuilt), True


def unfinished(run_dir: Path) -> str | None:
    """A note on a run that has not finished (still running, killed, or failed), else
    ``None``."""
    manifest = read_manifest(run_dir / MANIFEST)
    if manifest.status == FAILED:
        why = f" ({manifest.error})" if manifest.error else ""
        return f"the run in {run_dir} failed{why}: these are its results so far"
    if manifest.status != RUNNING:
        return None
    if writing(run_dir):
        return f"the run in {run_dir} is still running: these are its results so far"
    last = manifest.last_attempt
    seen = f", last seen at {last.updated_at}" if last is not None and last.updated_at else ""
    return (
        f"the run in {run_dir} did not finish (its process stopped without a word{seen}): "
        "these are its results so far; run the same command again to resume it"
    )
