"""``run.json`` across attempts: one run directory, run again and again until it is done.

The top level describes the run as it stands: the settings of the latest attempt, the
start of the first, every metric the store holds results of, and the latest status. The
``attempts`` list keeps each attempt: when it started and ended, how it ended, its metrics
and veracity version, and how many results it found done and how many it added.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

RUNNING = "running"
COMPLETED = "completed"
FAILED = "failed"
# What an attempt left "running" became: its process is gone without a word.
KILLED = "killed"
# What an attempt's end (``end_attempt``) sets on the attempt as well as on the top level.
ENDING = ("status", "finished_at", "error")


def timestamp() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def begin_attempt(
    previous: Mapping[str, Any] | None,
    current: Mapping[str, Any],
    stored: int,
    held_metrics: Iterable[str],
) -> dict[str, Any]:
    """The manifest of a new attempt: ``current`` (its own manifest, with its
    ``started_at`` and ``metrics``) over the history of ``previous`` (the same
    run's manifest, or ``None``); the store holds ``stored`` results, of ``held_metrics``."""
    attempts = _settled(previous, stored) if previous is not None else []
    started = current.get("started_at") or timestamp()
    asked = list(current.get("metrics") or ())
    attempt = {
        "started_at": started,
        "updated_at": started,
        "status": RUNNING,
        "veracity_version": current.get("veracity_version"),
        "metrics": asked,
        "iterations": (current.get("settings") or {}).get("iterations"),
        "results_resumed": stored,
        "results_new": 0,
    }
    held = set(held_metrics)
    named = [m for m in (previous or {}).get("metrics") or () if m in held]
    # Metrics the store holds in the order the run named them, then the new ones.
    metrics = list(dict.fromkeys([*named, *sorted(held - set(named)), *asked]))
    first = attempts[0] if attempts else attempt
    return {
        **current,
        "started_at": first.get("started_at", started),
        "status": RUNNING,
        "metrics": metrics,
        "results": stored,
        "attempts": [*attempts, attempt],
    }


def record_progress(manifest: dict[str, Any], stored: int) -> None:
    """Count the results in ``manifest`` as the store holds ``stored`` of them now."""
    attempt = manifest["attempts"][-1]
    attempt["results_new"] = stored - attempt["results_resumed"]
    attempt["updated_at"] = timestamp()
    manifest["results"] = stored


def end_attempt(manifest: dict[str, Any], fields: Mapping[str, Any]) -> None:
    """Set how the attempt ended (``status``, ``finished_at``, ``error``…) in ``manifest``,
    on the top level and on the attempt; the run's first start stays."""
    manifest.update({key: value for key, value in fields.items() if key != "started_at"})
    attempt = manifest["attempts"][-1]
    attempt.update({key: fields[key] for key in ENDING if key in fields})


def _settled(previous: Mapping[str, Any], stored: int) -> list[dict[str, Any]]:
    """The earlier attempts, the last one counted against the store: the results it added
    are all the store holds beyond those it found, whenever and however it stopped."""
    kept = previous.get("attempts")
    attempts = (
        [dict(a) for a in kept if isinstance(a, Mapping)]
        if isinstance(kept, list) and kept
        else [_before_attempts(previous)]  # a run.json of a version without attempts
    )
    last = attempts[-1]
    last["results_new"] = stored - int(last.get("results_resumed") or 0)
    if last.get("status") == RUNNING:  # this process holds the lock: that one is gone
        last["status"] = KILLED
    return attempts


def _before_attempts(manifest: Mapping[str, Any]) -> dict[str, Any]:
    kept = ("started_at", "finished_at", "status", "error", "veracity_version", "metrics")
    attempt = {key: manifest[key] for key in kept if key in manifest}
    attempt["results_resumed"] = manifest.get("resumed_results", 0)
    return attempt
