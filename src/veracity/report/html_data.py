"""What ``report.html`` shows, gathered in one streaming pass over a run directory.

Charts need every score but only as counts and sums; the drill-down embeds whole samples,
at most ``max_samples`` of them, so a run of any size yields a page of bounded size.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from veracity.dataset import DatasetError, RowError, dataset_fingerprint, read_dataset
from veracity.report.keys import DEFAULT_THRESHOLD, NO_SYSTEM
from veracity.report.summary import SummaryBuilder
from veracity.report.summary_file import as_read, read_summary
from veracity.report.thresholds import thresholds_from_settings
from veracity.store import MANIFEST, RESULTS, Manifest, read_manifest, read_results
from veracity.types import ResultRecord, Status

BINS = 10
MAX_TEXT = 8_000  # characters of one embedded string
MAX_RAW_REPLIES = 2
SampleKey = tuple[str, str | None]
# Every status in plain words, for the page (the drill-down's script takes them from here).
STATUS_LABELS = {
    Status.SCORED.value: "scored",
    Status.NO_CLAIMS.value: "no claims",
    Status.MISSING_REFERENCE.value: "no reference",
    Status.NO_CONTEXTS.value: "no contexts",
    Status.NO_CITATIONS.value: "no citations",
    Status.JUDGE_ERROR.value: "judge error",
    Status.UNSUPPORTED_BY_JUDGE.value: "not supported by this judge",
    Status.INVALID_INPUT.value: "invalid input",
    Status.SKIPPED.value: "skipped",
}


def status_label(status: str) -> str:
    return STATUS_LABELS.get(status, status.replace("_", " "))


def clip(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[:limit] + f"… ({len(text) - limit} more characters)"


def _slim(value: Any, depth: int = 0) -> Any:
    """``details`` made safe to embed: long strings clipped, deep nesting cut."""
    if isinstance(value, str):
        return clip(value)
    if depth > 6:
        return clip(json.dumps(value, ensure_ascii=False, default=str), 500)
    if isinstance(value, Mapping):
        return {str(k): _slim(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_slim(v, depth + 1) for v in value]
    return value


def slim_details(details: Mapping[str, Any]) -> dict[str, Any]:
    slim: dict[str, Any] = _slim(details)
    if isinstance(slim.get("raw_replies"), list):
        slim["raw_replies"] = [clip(str(r), 1_000) for r in slim["raw_replies"][:MAX_RAW_REPLIES]]
    return slim


@dataclass(slots=True)
class Mean:
    total: float = 0.0
    n: int = 0

    def add(self, score: float) -> None:
        self.total += score
        self.n += 1

    @property
    def value(self) -> float | None:
        return self.total / self.n if self.n else None


@dataclass
class ReportData:
    """Everything the page is built from."""

    manifest: Manifest
    summary: dict[str, Any]
    metrics: list[str] = field(default_factory=list)
    systems: list[str] = field(default_factory=list)
    question_types: list[str] = field(default_factory=list)
    histograms: dict[str, list[int]] = field(default_factory=dict)
    unscored: dict[str, int] = field(default_factory=dict)
    by_system: dict[tuple[str, str], Mean] = field(default_factory=lambda: defaultdict(Mean))
    by_type: dict[tuple[str, str], Mean] = field(default_factory=lambda: defaultdict(Mean))
    samples: dict[SampleKey, dict[str, Any]] = field(default_factory=dict)
    total_samples: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def truncated(self) -> bool:
        return self.total_samples > len(self.samples)

    @property
    def thresholds(self) -> dict[str, float]:
        """Each metric's pass threshold, as the summary has it (else the default)."""
        metrics = self.summary.get("metrics", {})
        found = {}
        for metric in self.metrics:
            threshold = metrics[metric]["threshold"] if metric in metrics else None
            found[metric] = DEFAULT_THRESHOLD if threshold is None else threshold["value"]
        return found


def _bin(score: float) -> int:
    return min(int(score * BINS), BINS - 1)


def collect(run_dir: Path, max_samples: int) -> ReportData:
    """Stream ``results.jsonl`` once; read ``run.json`` and ``summary.json`` (a summary is
    rebuilt from the results when the file is missing or is not a summary)."""
    if not (run_dir / RESULTS).is_file():
        raise FileNotFoundError(f"{run_dir} has no {RESULTS}: it is not a finished veracity run")
    manifest = read_manifest(run_dir / MANIFEST)
    summary = read_summary(run_dir)
    rebuild = None
    if summary is None:
        given = thresholds_from_settings(manifest.settings)
        rebuild = SummaryBuilder(manifest.metrics, given)
    data = ReportData(manifest=manifest, summary=summary or {})
    metrics: dict[str, None] = dict.fromkeys(manifest.metrics)
    systems: dict[str, None] = {}
    types: dict[str, None] = {}
    last: SampleKey | None = None
    for record in read_results(run_dir):
        if rebuild is not None:
            rebuild.add(record)
        metrics.setdefault(record.metric)
        system = record.system or NO_SYSTEM
        systems.setdefault(system)
        if record.question_type:
            types.setdefault(record.question_type)
        _count(data, record, system)
        key = (record.sample_id, record.system)
        if key != last and key not in data.samples:
            data.total_samples += 1  # a run's results are grouped by sample
        last = key
        sample = data.samples.get(key)
        if sample is None and len(data.samples) < max_samples:
            sample = data.samples[key] = {
                "id": record.sample_id,
                "system": record.system,
                "question_type": record.question_type,
                "results": [],
            }
        if sample is not None:
            sample["results"].append(_result(record))
    if rebuild is not None:
        data.summary = as_read(rebuild.build(bad_rows=manifest.bad_rows))
        data.notes.append(
            "summary.json is missing or is not a summary: the summary was rebuilt from the results."
        )
    data.metrics, data.systems, data.question_types = list(metrics), list(systems), list(types)
    if data.truncated:
        data.notes.append(
            f"The drill-down holds the first {len(data.samples):,} of "
            f"{data.total_samples:,} samples; the charts and tables count them all."
        )
    return data


def _count(data: ReportData, record: ResultRecord, system: str) -> None:
    bins = data.histograms.setdefault(record.metric, [0] * BINS)
    if record.score is None:
        data.unscored[record.metric] = data.unscored.get(record.metric, 0) + 1
        return
    bins[_bin(record.score)] += 1
    data.by_system[record.metric, system].add(record.score)
    if record.question_type:
        data.by_type[record.metric, record.question_type].add(record.score)


def _result(record: ResultRecord) -> dict[str, Any]:
    return {
        "metric": record.metric,
        "iteration": record.iteration,
        "score": record.score,
        "calibrated": record.calibrated,
        "status": record.status.value,
        "reason": clip(record.reason),
        "details": slim_details(record.details),
    }


def _dataset_file(run_dir: Path, manifest: Manifest) -> tuple[Path | None, str]:
    """The run's dataset file if it can be found unchanged, else why not."""
    name, sha = manifest.dataset.path, manifest.dataset.sha256
    if not name:
        return None, "the run names no dataset file"
    candidates = [Path(name)]
    if not Path(name).is_absolute():
        candidates += [run_dir / name, run_dir.parent / name]
    for path in candidates:
        if path.is_file():
            try:
                same = sha is None or dataset_fingerprint(path) == sha
            except DatasetError:
                continue
            if same:
                return path, ""
            return None, f"the dataset file {name} has changed since the run"
    return None, f"the dataset file {name} was not found"


def attach_texts(data: ReportData, run_dir: Path, dataset: Path | None = None) -> None:
    """Add question, answer, contexts, reference and the earlier turns of the conversation
    (if any) to the embedded samples, streaming the
    dataset (``dataset``, or the file ``run.json`` names when it is unchanged)."""
    if not data.samples:
        return
    path, why = (dataset, "") if dataset is not None else _dataset_file(run_dir, data.manifest)
    if path is None:
        data.notes.append(f"Questions and answers are not shown: {why}.")
        return
    try:
        _fill(data.samples, read_dataset(path))
    except DatasetError as exc:
        data.notes.append(f"Questions and answers are not shown: {exc}.")


def _fill(samples: dict[SampleKey, dict[str, Any]], rows: Iterable[Any]) -> None:
    missing = len(samples)
    for row in rows:
        if isinstance(row, RowError):
            continue
        sample = samples.get((row.id, row.system))
        if sample is None or "question" in sample:
            continue
        sample.update(
            question=clip(row.question),
            answer=clip(row.answer),
            reference=None if row.reference is None else clip(row.reference),
            contexts=[clip(c) for c in row.contexts],
        )
        if row.history:
            sample["history"] = [{"role": t.role, "content": clip(t.content)} for t in row.history]
        missing -= 1
        if not missing:
            return  # the rest of a large dataset is not needed
