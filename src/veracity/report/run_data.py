"""A run to report on or export, from its directory or from a result in memory: its
summary, its manifest, the thresholds it is judged against, and its records.

The records of a run directory are streamed from ``results.jsonl`` each time they are
asked for, never held; a result in memory already holds them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from veracity.report.load import ReportError, given_thresholds, load_summary
from veracity.report.summary import summarize
from veracity.report.summary_file import as_read
from veracity.report.thresholds import gated_metric
from veracity.store import MANIFEST, Manifest, ResultsFileError, read_manifest, read_results
from veracity.types import ResultRecord


class RunLike(Protocol):
    """What a run gives back in Python (``EvaluationResult``): enough to report on it."""

    @property
    def summary(self) -> dict[str, Any]: ...

    @property
    def results(self) -> Sequence[ResultRecord]: ...

    @property
    def manifest(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class RunData:
    """A run's summary and manifest, and ``thresholds``: the metrics that have a pass
    threshold given for them (by the run, or on top of it), with its value."""

    summary: dict[str, Any]
    manifest: Manifest
    thresholds: dict[str, float]
    run_dir: Path | None = None
    held: tuple[ResultRecord, ...] | None = field(default=None, repr=False)
    # The summary was rebuilt from the records (not written anywhere): summary.json was
    # missing or old, or the thresholds changed.
    rebuilt: bool = False

    def records(self) -> Iterator[ResultRecord]:
        """Every result record, in the order the run wrote them."""
        if self.held is not None:
            return iter(self.held)
        assert self.run_dir is not None  # one of the two is always set by load_run
        return read_results(self.run_dir)

    def dataset_file(self) -> Path | None:
        """The run's dataset, if it is still there: the path ``run.json`` records, else a
        file of that name in the run directory (a run from traces keeps its samples there,
        recorded relative to the working directory it ran in)."""
        recorded = self.manifest.dataset.path
        if not recorded:
            return None
        if Path(recorded).is_file():
            return Path(recorded)
        beside = self.run_dir / Path(recorded).name if self.run_dir is not None else None
        return beside if beside is not None and beside.is_file() else None

    @property
    def judge(self) -> dict[str, Any]:
        return self.manifest.judge.model_dump(mode="json", exclude_unset=True)

    @property
    def iterations(self) -> int:
        """How many iterations the results span (the most of any metric)."""
        return max(
            (len(groups.get("by_iteration") or {}) for groups in self.metrics.values()),
            default=1,
        )

    @property
    def metrics(self) -> dict[str, dict[str, Any]]:
        metrics: dict[str, dict[str, Any]] = self.summary["metrics"]
        return metrics

    def threshold(self, metric: str) -> float:
        """The threshold the summary's pass rates of ``metric`` used (given or default)."""
        return float(self.metrics[metric]["threshold"]["value"])


def _stale(summary: Mapping[str, Any], thresholds: Mapping[str, float]) -> bool:
    """Whether the summary's pass rates used other thresholds than ``thresholds``."""
    metrics = summary["metrics"]
    return any(
        metrics[metric]["threshold"] != {"value": value, "source": "given"}
        for metric, value in thresholds.items()
        if metric in metrics  # not a gate on calibrated probabilities
    )


def load_run(
    source: Path | str | RunLike, thresholds: Mapping[str, float] | None = None
) -> RunData:
    """The run in the directory ``source`` (or the result ``source``), judged against
    its own thresholds and ``thresholds`` on top. When those change a metric's threshold
    the summary is rebuilt from the records, so its pass rates use the new one.
    :class:`ReportError` for a run that cannot be read or a threshold on a metric the
    run does not have."""
    if isinstance(source, str | Path):
        run_dir: Path | None = Path(source)
        summary, rebuilt = load_summary(Path(source))
        manifest = read_manifest(Path(source) / MANIFEST)
        held = None
    else:
        run_dir, summary = None, as_read(source.summary)
        manifest = Manifest.lenient(source.manifest, "the result's manifest")
        held, rebuilt = tuple(source.results), False
    metrics = summary["metrics"]
    unknown = [gate for gate in thresholds or {} if gated_metric(gate) not in metrics]
    if unknown:
        raise ReportError(
            f"threshold on {', '.join(map(repr, unknown))}, a metric this run does not "
            f"have (its metrics: {', '.join(metrics) or 'none'})"
        )
    given = given_thresholds(summary, manifest) | dict(thresholds or {})
    given = {gate: value for gate, value in given.items() if gated_metric(gate) in metrics}
    run = RunData(summary, manifest, given, run_dir, held, rebuilt)
    if not _stale(summary, given):
        return run
    bad_rows = summary.get("bad_rows", 0)
    try:
        rebuilt_summary = summarize(
            run.records(),
            list(metrics),
            given,
            bad_rows=bad_rows if isinstance(bad_rows, int) else 0,
        )
    except ResultsFileError as exc:  # names the file and the line
        raise ReportError(str(exc)) from exc
    return RunData(as_read(rebuilt_summary), manifest, given, run_dir, held, rebuilt=True)
