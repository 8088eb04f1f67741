"""What ``veracity agree`` finds, as data: each figure with its interval, the agreement of
each metric overall and per system, the worst disagreements, the paired differences, the
gates checked, and the whole report.

The figures are named here once: what each is called in a table, which need scores that
read as probabilities, and which a table shows for a metric. The views (console,
Markdown, HTML) and the computations (statistics, gates, the report) import this module;
it imports none of them.

Every class here serialises (``as_dict``) under its own field names, nested as the
classes nest, then the values derived from it under the name of the method or property
that gives them (``caveats``, ``met``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, Final, NamedTuple

from veracity.labels import InterAnnotator, LabelSet
from veracity.labels.values import show

#: Every figure of agreement, in the order tables show them, with how each is written.
FIGURE_NAMES: Final[dict[str, str]] = {
    "auroc": "AUROC",
    "balanced_accuracy": "bal. acc.",
    "balanced_accuracy_cv": "bal. acc. (cv)",
    "kappa": "κ",
    "weighted_kappa": "weighted κ",
    "spearman": "Spearman",
    "brier": "Brier",
    "ece": "ECE",
}
#: Computed for every metric (as far as the labels allow).
ALWAYS: Final = ("auroc", "balanced_accuracy", "balanced_accuracy_cv", "kappa")
#: Computed where the labels are graded (weighted κ) or have values (Spearman).
GRADED: Final = ("weighted_kappa", "spearman")
#: Computed only for scores that read as probabilities.
PROBABILITY: Final = ("brier", "ece")
#: The figures where a lower value is the better one.
LOWER_IS_BETTER: Final = frozenset({"brier", "ece"})
#: Below this many labelled items, the figures are a rough guide (and flagged so).
SMALL_SAMPLE = 30


def plain(value: object) -> Any:
    """``value`` as JSON holds it: a dataclass or named tuple as a dict of its own field
    names (recursively), a mapping as a dict, a tuple or list as a list."""
    if is_dataclass(value) and not isinstance(value, type):
        return by_field(value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {name: plain(item) for name, item in zip(value._fields, value, strict=True)}
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, tuple | list):
        return [plain(item) for item in value]
    return value


def by_field(value: Any) -> dict[str, Any]:
    """A dataclass as a dict of its own field names, each value :func:`plain`."""
    return {f.name: plain(getattr(value, f.name)) for f in fields(value)}


class ByField:
    """A dataclass serialised as :func:`by_field` makes it."""

    __slots__ = ()

    def as_dict(self) -> dict[str, Any]:
        return by_field(self)


@dataclass(frozen=True, slots=True)
class Estimate(ByField):
    """A figure, its bootstrap interval, and why either is missing."""

    value: float | None
    ci95: tuple[float, float] | None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class Figures(ByField):
    """The agreement of one metric's scores with people's labels."""

    n: int
    n_positive: int
    base_rate: float | None
    threshold: float
    auroc: Estimate
    balanced_accuracy: Estimate
    best_threshold: float | None
    balanced_accuracy_cv: Estimate
    kappa: Estimate
    weighted_kappa: Estimate | None
    spearman: Estimate | None
    brier: Estimate | None
    ece: Estimate | None
    confusion: dict[str, int]
    roc: tuple[tuple[float, float], ...]
    reliability: tuple[dict[str, float | int], ...]
    resamples: int  # the resamples holding both classes (AUROC, κ… have a value in each)
    resamples_drawn: int = 0  # all resamples drawn (0: fewer than 2 items or groups)

    def estimate(self, figure: str) -> Estimate | None:
        """The figure named (a key of :data:`FIGURE_NAMES`), ``None`` where not computed."""
        found: Estimate | None = getattr(self, figure)
        return found


@dataclass(frozen=True, slots=True)
class PairedEstimate(ByField):
    """Metric B against metric A on the same items: diff = b − a, its paired interval."""

    a: float | None
    b: float | None
    diff: float | None
    ci95: tuple[float, float] | None
    reason: str | None = None


class Vote(NamedTuple):
    """One annotator's label of an item (``annotator`` None: not named)."""

    annotator: str | None
    value: float


@dataclass(frozen=True, slots=True)
class Disagreement(ByField):
    """An item where the score and the people disagree most."""

    sample_id: str
    system: str | None
    score: float
    label: float
    votes: tuple[Vote, ...]
    reason: str
    claims: tuple[dict[str, Any], ...]
    question: str | None
    answer: str | None


@dataclass(frozen=True, slots=True)
class GroupAgreement(ByField):
    """The agreement of one metric on one group of items (all, or one system's)."""

    system: str | None
    figures: Figures
    # Labelled good but scored lowest; labelled bad but scored highest.
    missed: tuple[Disagreement, ...]
    false_alarms: tuple[Disagreement, ...]


@dataclass(frozen=True, slots=True)
class PairedMetric(ByField):
    """Run B against run A on one metric, on the items both scored."""

    metric: str
    n: int
    figures: dict[str, PairedEstimate]


@dataclass(frozen=True, slots=True)
class MetricAgreement:
    metric: str
    target: str
    scale: str
    threshold: float
    probability_like: bool
    overall: GroupAgreement
    by_system: tuple[GroupAgreement, ...]
    unscored: dict[str, int]
    without_result: int
    ambiguous: int
    tied: int
    inter_annotator: InterAnnotator | None
    grouped: bool  # the labels name groups, resampled whole
    #: For a calibrated probability (``faithfulness:calibrated``): calibrated − raw on the
    #: same items, each figure with its paired-bootstrap interval.
    against_raw: PairedMetric | None = None
    #: The first few ids of the labels without a result.
    missing_ids: tuple[str, ...] = ()

    def figure_names(self) -> list[str]:
        """The figures a table of this metric shows, in order: those every metric has,
        weighted κ and Spearman where the labels gave them, Brier and ECE for a score that
        reads as a probability."""
        figures = self.overall.figures
        graded = [name for name in GRADED if figures.estimate(name) is not None]
        return [*ALWAYS, *graded, *(PROBABILITY if self.probability_like else ())]

    def not_used(self) -> list[str]:
        """What of the labels did not enter the figures, in words ([] when all did)."""
        parts = [f"{n} unscored ({status})" for status, n in sorted(self.unscored.items())]
        if self.without_result:
            ids = ", ".join(show(i) for i in self.missing_ids)
            shown = f" (e.g. id {ids})" if ids else ""
            parts.append(f"{self.without_result} label(s) without a result{shown}")
        if self.ambiguous:
            parts.append(f"{self.ambiguous} label(s) without a system where several answered")
        if self.tied:
            parts.append(f"{self.tied} item(s) whose votes tie")
        return parts

    def resampling(self) -> str:
        """How the intervals were drawn, e.g. ``1,000 resamples of whole groups``."""
        drawn = self.overall.figures.resamples_drawn
        what = "whole groups" if self.grouped else "items"
        return f"{drawn:,} resamples of {what}" if drawn else "no resampling"

    def caveats(self) -> list[str]:
        """What to keep in mind reading the figures, in words ([] when nothing): few
        items, intervals of zero width, resamples that held one class only."""
        groups = (self.overall, *self.by_system)
        notes = []
        small = [g for g in groups if g.figures.n < SMALL_SAMPLE]
        if small:
            sizes = ", ".join(
                f"{'all' if g.system is None else g.system}: {g.figures.n}" for g in small
            )
            notes.append(
                f"few labelled items ({sizes}; below {SMALL_SAMPLE}): read every figure as a "
                "rough guide — with so few, an interval is itself uncertain (often too "
                "narrow), and only more labels firm the figures up"
            )
        flat = {
            name: estimate.ci95[0]
            for g in groups
            for name in FIGURE_NAMES
            if (estimate := g.figures.estimate(name)) is not None
            and estimate.ci95 is not None
            and estimate.ci95[0] == estimate.ci95[1]
        }
        if flat:
            value = next(iter(flat.values()))
            notes.append(
                f"{', '.join(FIGURE_NAMES[n] for n in flat)}: an interval of zero width "
                f"(e.g. {value:.2f}–{value:.2f}) means every resample of these items gave the "
                "same figure — with few items a perfect (or constant) result repeats in "
                "every resample; it describes the items seen, not a certainty"
            )
        if self.against_raw is not None:
            notes.append(
                "calibrated probabilities (P ≥ 0.5 counts as good): a fair check of the "
                "calibration only on labels it was not fitted on — on its own labels they "
                "flatter it"
            )
        drawn, used = self.overall.figures.resamples_drawn, self.overall.figures.resamples
        if not drawn:
            notes.append("no intervals: fewer than 2 items (or groups) to resample")
        elif used < drawn:
            notes.append(
                f"{drawn - used:,} of the {drawn:,} resamples held labels of one class only: "
                f"AUROC, balanced accuracy and κ have no value there, so their intervals "
                f"come from the other {used:,}"
            )
        return notes

    def as_dict(self) -> dict[str, Any]:
        return {**by_field(self), "not_used": self.not_used(), "caveats": self.caveats()}


@dataclass(frozen=True, slots=True)
class Gate:
    """One ``--min``: ``figure`` at least ``minimum`` (for ``metric`` only, if given)."""

    figure: str
    minimum: float
    metric: str | None = None

    def __str__(self) -> str:
        where = "" if self.metric is None else f"{self.metric}: "
        return f"{where}{FIGURE_NAMES[self.figure]} ≥ {self.minimum:g}"


@dataclass(frozen=True, slots=True)
class GateCheck:
    """A gate against one run, metric and group of items (``system`` None: all)."""

    gate: Gate
    run: str
    metric: str
    system: str | None
    n: int
    value: float | None
    low: float | None  # the lower bound of the 95 % interval
    reason: str | None  # why there is no lower bound to compare

    @property
    def met(self) -> bool:
        return self.low is not None and self.low >= self.gate.minimum

    def describe(self) -> str:
        """One line: the gate, where, and what was found."""
        figure = FIGURE_NAMES[self.gate.figure]
        where = f"{self.metric} · {'all' if self.system is None else self.system}"
        head = f"{figure} ≥ {self.gate.minimum:g} ({where}, n={self.n})"
        if self.low is None:
            return f"{head}: NOT met, no lower bound to compare: {self.reason}"
        verdict = "met" if self.met else "NOT met"
        shown = "" if self.value is None else f", the figure {self.value:.3f}"
        return f"{head}: 95 % lower bound {self.low:.3f}{shown}: {verdict}"

    def as_dict(self) -> dict[str, Any]:
        return {**by_field(self), "met": self.met}


@dataclass(frozen=True, slots=True)
class Agreement:
    """The agreement of one run (or two, paired) with people's labels: per run, each
    labelled metric; the paired differences; the gates checked."""

    runs: tuple[str, ...]
    labels: LabelSet
    metrics: tuple[tuple[MetricAgreement, ...], ...]  # one tuple per run
    paired: tuple[PairedMetric, ...]
    targets_without_metric: tuple[str, ...]
    #: The gates checked (``gated``): each gate against each run, metric and system.
    gates: tuple[GateCheck, ...] = ()

    @property
    def order_warning(self) -> str | None:
        """Why the figures may be biased: labels given to items chosen other than at random
        (``veracity label --order uncertain``, say), or ``None``."""
        orders = self.labels.non_random_orders()
        if not orders:
            return None
        counted = ", ".join(f"{n} chosen by --order {order}" for order, n in orders.items())
        return (
            f"{sum(orders.values())} of {len(self.labels.labels)} label(s) were not given to "
            f"items drawn at random ({counted}): these figures are not an unbiased estimate "
            "of agreement (label with --order random for that)"
        )

    @property
    def gates_met(self) -> bool:
        """Whether every gate checked is met (true without gates)."""
        return all(check.met for check in self.gates)

    def as_dict(self) -> dict[str, Any]:
        # The labels themselves are the labels file's; the report keeps what was read.
        labels = self.labels
        read = {
            "source": labels.source,
            "rows": labels.rows,
            "items": len(labels.items),
            "targets": {t: s.describe() for t, s in labels.scales.items()},
            "bad_rows": len(labels.bad_rows),
            "bad_rows_shown": [str(row) for row in labels.bad_rows[:20]],
            "ignored": dict(labels.ignored),
        }
        return {
            "runs": list(self.runs),
            "labels": read,
            "metrics": [[m.as_dict() for m in run] for run in self.metrics],
            "paired": plain(self.paired),
            "targets_without_metric": list(self.targets_without_metric),
            "gates": [check.as_dict() for check in self.gates],
            "order_warning": self.order_warning,
            "gates_met": self.gates_met,
        }

    def rows(self) -> list[dict[str, Any]]:
        """One flat row per run, metric and group (all items, then each system): n, the
        share labelled good, and each figure with its interval bounds."""
        found = []
        for run, metrics in zip(self.runs, self.metrics, strict=True):
            for metric in metrics:
                for group in (metric.overall, *metric.by_system):
                    row: dict[str, Any] = {
                        "run": run,
                        "metric": metric.metric,
                        "target": metric.target,
                        "system": group.system,
                        "n": group.figures.n,
                        "base_rate": group.figures.base_rate,
                        "threshold": metric.threshold,
                    }
                    for name in FIGURE_NAMES:
                        e = group.figures.estimate(name)
                        ci = None if e is None else e.ci95
                        row[name] = None if e is None else e.value
                        row[f"{name}_low"] = None if ci is None else ci[0]
                        row[f"{name}_high"] = None if ci is None else ci[1]
                    found.append(row)
        return found

    def to_pandas(self) -> Any:
        """:meth:`rows` as a pandas DataFrame (needs pandas)."""
        import pandas as pd

        return pd.DataFrame(self.rows())
