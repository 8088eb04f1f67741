"""Paired comparison of two runs, or of two systems inside one run.

Results pair on (sample_id, metric, iteration) — and on the system too when a run holds
one sample id under several systems. Per metric: the mean of A and of B over the pairs
both scored, the mean difference B − A with its paired-bootstrap 95 % CI and sign-flip
p-value (resampling and flipping whole samples, so iterations are not counted as
independent evidence), and the pairs that dropped most. Results without a partner and
pairs with a side unscored are counted, never silently dropped.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from veracity.report.excerpts import cut
from veracity.report.statistics import PairedComparison, paired_comparison
from veracity.store import read_results
from veracity.types import ResultRecord

TOP_REGRESSED = 10
# Differences smaller than this are no change: they print as 0.0 (scores ×100), and a
# local model's repeatability in the fourth decimal is not a regression.
UNCHANGED = 5e-4
_FullKey = tuple[str, str | None, str, int]  # sample_id, system, metric, iteration


@dataclass(frozen=True, slots=True)
class Regression:
    """One pair that scored lower in B than in A."""

    sample_id: str
    system_a: str | None
    system_b: str | None
    question_type: str | None
    iteration: int
    score_a: float
    score_b: float
    reason_a: str
    reason_b: str

    @property
    def diff(self) -> float:
        return self.score_b - self.score_a

    def as_dict(self) -> dict[str, Any]:
        return {
            "sample_id": self.sample_id,
            "system_a": self.system_a,
            "system_b": self.system_b,
            "question_type": self.question_type,
            "iteration": self.iteration,
            "score_a": self.score_a,
            "score_b": self.score_b,
            "diff": self.diff,
            "reason_a": self.reason_a,
            "reason_b": self.reason_b,
        }


@dataclass(slots=True)
class MetricComparison:
    """B against A on one metric."""

    metric: str
    n_a: int = 0
    n_b: int = 0
    unpaired_a: int = 0
    unpaired_b: int = 0
    unscored_in_a: int = 0
    unscored_in_b: int = 0
    unscored_in_both: int = 0
    improved: int = 0
    regressed_count: int = 0
    unchanged: int = 0
    stats: PairedComparison = field(default_factory=lambda: paired_comparison([], []))
    regressed: list[Regression] = field(default_factory=list)

    def not_compared(self) -> str:
        """What of the metric was not compared, in words: results without a partner,
        unscored pairs ("" when everything was)."""
        unpaired = (("A", self.unpaired_a), ("B", self.unpaired_b))
        unscored = (("A", self.unscored_in_a), ("B", self.unscored_in_b),
                    ("both", self.unscored_in_both))  # fmt: skip
        return ", ".join(
            [f"{count} only in {side}" for side, count in unpaired if count]
            + [f"{count} unscored in {side}" for side, count in unscored if count]
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "n_a": self.n_a,
            "n_b": self.n_b,
            **self.stats.as_dict(),
            "unpaired": {"a": self.unpaired_a, "b": self.unpaired_b},
            "unscored": {
                "a": self.unscored_in_a,
                "b": self.unscored_in_b,
                "both": self.unscored_in_both,
            },
            "changes": {
                "improved": self.improved,
                "regressed": self.regressed_count,
                "unchanged": self.unchanged,
            },
            "regressed": [r.as_dict() for r in self.regressed],
        }


@dataclass(frozen=True, slots=True)
class Comparison:
    label_a: str
    label_b: str
    # The fields results were paired on.
    pairing: tuple[str, ...]
    metrics: tuple[MetricComparison, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "a": self.label_a,
            "b": self.label_b,
            "pairing": list(self.pairing),
            "metrics": {m.metric: m.as_dict() for m in self.metrics},
        }


def _index(records: Iterable[ResultRecord]) -> dict[_FullKey, ResultRecord]:
    return {(r.sample_id, r.system, r.metric, r.iteration): r for r in records}


def _needs_system(*runs: dict[_FullKey, ResultRecord]) -> bool:
    """Whether a run holds one (sample_id, metric, iteration) under several systems."""
    return any(len({(s, m, i) for s, _, m, i in run}) < len(run) for run in runs)


def compare_records(
    records_a: Iterable[ResultRecord],
    records_b: Iterable[ResultRecord],
    *,
    label_a: str = "A",
    label_b: str = "B",
    with_system: bool | None = None,
    top: int = TOP_REGRESSED,
) -> Comparison:
    """Compare ``records_b`` against ``records_a``. ``with_system`` pairs on the system
    too (default: only when a side needs it to tell its results apart)."""
    run_a, run_b = _index(records_a), _index(records_b)
    if with_system is None:
        with_system = _needs_system(run_a, run_b)

    def key(full: _FullKey) -> tuple[str, str | None, str, int]:
        sample_id, system, metric, iteration = full
        return sample_id, system if with_system else None, metric, iteration

    side_a = {key(k): r for k, r in run_a.items()}
    side_b = {key(k): r for k, r in run_b.items()}
    names = list(dict.fromkeys([k[2] for k in side_a] + [k[2] for k in side_b]))
    found = {name: MetricComparison(name) for name in names}
    for k in side_a:
        found[k[2]].n_a += 1
        found[k[2]].unpaired_a += k not in side_b
    for k in side_b:
        found[k[2]].n_b += 1
        found[k[2]].unpaired_b += k not in side_a
    pairs: dict[str, list[tuple[ResultRecord, ResultRecord]]] = {name: [] for name in names}
    for k, a in side_a.items():
        b = side_b.get(k)
        if b is None:
            continue
        entry = found[k[2]]
        if a.score is None or b.score is None:
            entry.unscored_in_a += a.score is None and b.score is not None
            entry.unscored_in_b += b.score is None and a.score is not None
            entry.unscored_in_both += a.score is None and b.score is None
        else:
            pairs[k[2]].append((a, b))
    for name in names:
        _fill(found[name], pairs[name], top)
    pairing = ("sample_id", "system", "metric", "iteration") if with_system else (
        "sample_id", "metric", "iteration")  # fmt: skip
    return Comparison(label_a, label_b, pairing, tuple(found.values()))


def _fill(
    entry: MetricComparison, pairs: list[tuple[ResultRecord, ResultRecord]], top: int
) -> None:
    scores_a = [float(a.score or 0.0) for a, _ in pairs]
    scores_b = [float(b.score or 0.0) for _, b in pairs]
    items: dict[tuple[str, str | None], int] = {}
    clusters = [items.setdefault((a.sample_id, a.system), len(items)) for a, _ in pairs]
    entry.stats = paired_comparison(scores_a, scores_b, clusters)
    drops = []
    for (a, b), x, y in zip(pairs, scores_a, scores_b, strict=True):
        entry.improved += y > x + UNCHANGED
        entry.regressed_count += y < x - UNCHANGED
        entry.unchanged += abs(y - x) <= UNCHANGED
        if y < x - UNCHANGED:
            drops.append(
                Regression(
                    a.sample_id,
                    a.system,
                    b.system,
                    a.question_type or b.question_type,
                    a.iteration,
                    x,
                    y,
                    cut(a.reason),
                    cut(b.reason),
                )
            )
    drops.sort(key=lambda r: r.diff)  # stable: of equal drops, the earlier result first
    entry.regressed = drops[:top]


class CompareError(ValueError):
    """Bad input to a comparison: a missing run, an unknown system."""


def compare_runs(run_a: Path, run_b: Path, *, top: int = TOP_REGRESSED) -> Comparison:
    """Run B against run A (two run directories)."""
    return compare_records(
        read_results(run_a), read_results(run_b), label_a=str(run_a), label_b=str(run_b), top=top
    )


def compare_systems(
    run: Path, system_a: str, system_b: str, *, top: int = TOP_REGRESSED
) -> Comparison:
    """System B against system A inside one run directory."""
    records = list(read_results(run))
    known = {r.system for r in records if r.system is not None}
    for system in (system_a, system_b):
        if system not in known:
            listed = ", ".join(sorted(known)) or "none"
            raise CompareError(f"system {system!r} is not in {run} (systems: {listed})")
    return compare_records(
        (r for r in records if r.system == system_a),
        (r for r in records if r.system == system_b),
        label_a=system_a,
        label_b=system_b,
        with_system=False,
        top=top,
    )
