"""How far a run's scores agree with people's labels: per metric, overall and per
system, the figures of :mod:`veracity.agreement.statistics`, the worst disagreements in
both directions with the claims and verdicts behind them, the people's own agreement
(the ceiling), and for two runs on the same labels the paired difference of each figure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from html import escape
from io import StringIO
from typing import Any

from veracity.agreement.gate import GateCheck, check_gates, parse_gates
from veracity.agreement.join import (
    Joined,
    NoSharedItems,
    Pair,
    join,
    targets_without_metric,
)
from veracity.agreement.statistics import (
    FIGURE_NAMES,
    RESAMPLES,
    SMALL_SAMPLE,
    Figures,
    PairedEstimate,
    agreement_figures,
    paired_figures,
)
from veracity.labels import InterAnnotator, LabelKind, LabelSet
from veracity.labels.values import show
from veracity.report.excerpts import cut
from veracity.report.keys import DEFAULT_THRESHOLD
from veracity.types import ResultRecord, Sample

TOP = 5
#: A calibrated probability's metric name is the metric's with this suffix, as in
#: ``--threshold faithfulness:calibrated=0.7``; at or above one half it counts as good.
CALIBRATED = ":calibrated"
CALIBRATED_THRESHOLD = 0.5
NO_PROBABILITY = "no calibrated probability"
# Scores that read as a probability that the answer is good: a share of supported claims
# or attributable statements, a correct/wrong verdict. Brier and calibration error are
# computed for these (and for a calibrated probability) only.
PROBABILITY_LIKE = frozenset(
    {
        "faithfulness",
        "answer_classification",
        "context_recall",
        "context_precision",
        "citation_recall",
        "citation_precision",
    }
)
_FIGURES = ("auroc", "balanced_accuracy", "balanced_accuracy_cv", "kappa", "weighted_kappa",
            "spearman", "brier", "ece")  # fmt: skip
_CLAIM_KEYS = ("claim", "verdict", "p_supported", "reason", "evidence", "evidence_not_found")


@dataclass(frozen=True, slots=True)
class Disagreement:
    """An item where the score and the people disagree most."""

    sample_id: str
    system: str | None
    score: float
    label: float
    votes: tuple[tuple[str | None, float], ...]
    reason: str
    claims: tuple[dict[str, Any], ...]
    question: str | None
    answer: str | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "sample_id": self.sample_id,
            "system": self.system,
            "score": self.score,
            "label": self.label,
            "votes": [{"annotator": a, "value": v} for a, v in self.votes],
            "reason": self.reason,
            "claims": list(self.claims),
            "question": self.question,
            "answer": self.answer,
        }


@dataclass(frozen=True, slots=True)
class GroupAgreement:
    """The agreement of one metric on one group of items (all, or one system's)."""

    system: str | None
    figures: Figures
    # Labelled good but scored lowest; labelled bad but scored highest.
    missed: tuple[Disagreement, ...]
    false_alarms: tuple[Disagreement, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "system": self.system,
            **self.figures.as_dict(),
            "disagreements": {
                "labelled_good_scored_low": [d.as_dict() for d in self.missed],
                "labelled_bad_scored_high": [d.as_dict() for d in self.false_alarms],
            },
        }


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
            for name in _FIGURES
            if (estimate := getattr(g.figures, name)) is not None
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
        ia = self.inter_annotator
        return {
            "metric": self.metric,
            "target": self.target,
            "scale": self.scale,
            "threshold": self.threshold,
            "probability_like": self.probability_like,
            "grouped": self.grouped,
            "caveats": self.caveats(),
            "against_raw": None if self.against_raw is None else self.against_raw.as_dict(),
            "overall": self.overall.as_dict(),
            "by_system": [g.as_dict() for g in self.by_system],
            "not_used": {
                "unscored": dict(self.unscored),
                "labels_without_result": self.without_result,
                "labels_without_result_ids": list(self.missing_ids),
                "ambiguous_system": self.ambiguous,
                "tied_votes": self.tied,
            },
            "inter_annotator": None
            if ia is None
            else {
                "annotators": ia.annotators,
                "items": ia.items,
                "raw_agreement": ia.raw_agreement,
                "kappa": ia.kappa,
                "pairs": ia.pairs,
            },
        }


@dataclass(frozen=True, slots=True)
class PairedMetric:
    """Run B against run A on one metric, on the items both scored."""

    metric: str
    n: int
    figures: dict[str, PairedEstimate]

    def as_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "n_paired": self.n,
            **{name: e.as_dict() for name, e in self.figures.items()},
        }


@dataclass(frozen=True, slots=True)
class AgreementReport:
    runs: tuple[str, ...]
    labels: LabelSet
    metrics: tuple[tuple[MetricAgreement, ...], ...]  # one tuple per run
    paired: tuple[PairedMetric, ...]
    targets_without_metric: tuple[str, ...]
    #: The gates checked (``gated``): each gate against each run, metric and system.
    gates: tuple[GateCheck, ...] = ()

    def gated(self, minimums: Sequence[str] | Mapping[str, float]) -> AgreementReport:
        """This report with gates checked: ``["auroc=0.8", "kappa=0.4"]`` as ``--min``
        takes them, or ``{"auroc": 0.8}``. A gate is met where the 95 % interval's lower
        bound reaches it; :attr:`gates_met` says whether every one is. ``ValueError`` for
        a bad gate."""
        specs = (
            [f"{name}={value}" for name, value in minimums.items()]
            if isinstance(minimums, Mapping)
            else list(minimums)
        )
        return replace(self, gates=check_gates(self, parse_gates(specs)))

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
        return {
            "runs": list(self.runs),
            "labels": {
                "source": self.labels.source,
                "rows": self.labels.rows,
                "items": len(self.labels.items),
                "targets": {t: s.describe() for t, s in self.labels.scales.items()},
                "bad_rows": len(self.labels.bad_rows),
                "bad_rows_shown": [str(row) for row in self.labels.bad_rows[:20]],
                "targets_without_metric": list(self.targets_without_metric),
                "order_warning": self.order_warning,
            },
            "agreement": [[m.as_dict() for m in run] for run in self.metrics],
            "paired": [p.as_dict() for p in self.paired],
            "gates": [check.as_dict() for check in self.gates],
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
                    for name in _FIGURES:
                        e = getattr(group.figures, name)
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

    def _repr_html_(self) -> str:
        """The agreement page, framed, as a notebook shows the report."""
        from veracity.agreement.html import render_agreement_html

        page = escape(render_agreement_html(self), quote=True)
        return (
            f'<iframe srcdoc="{page}" style="width:100%;height:640px;border:0" '
            'title="agreement with people"></iframe>'
        )

    def __str__(self) -> str:
        from rich.console import Console

        from veracity.agreement.console import print_agreement

        # Plain text wherever it is printed, a notebook included (rich would display there).
        buffer = StringIO()
        console = Console(width=120, file=buffer, force_jupyter=False, color_system=None)
        print_agreement(self, console)
        return buffer.getvalue()


def _disagreement(pair: Pair, samples: Mapping[tuple[str, str | None], Sample]) -> Disagreement:
    record = pair.records[0]
    sample = samples.get((record.sample_id, record.system))
    raw = record.details.get("claims")
    claims = tuple(
        {k: c[k] for k in _CLAIM_KEYS if k in c}
        for c in (raw if isinstance(raw, list) else [])
        if isinstance(c, dict)
    )
    return Disagreement(
        sample_id=record.sample_id,
        system=record.system,
        score=pair.score,
        label=pair.label.value,
        votes=pair.label.votes,
        reason=record.reason,
        claims=claims,
        question=cut(sample.question, 400) if sample else None,
        answer=cut(sample.answer, 600) if sample else None,
    )


def _group(
    joined: Joined,
    pairs: Sequence[Pair],
    system: str | None,
    threshold: float,
    probability_like: bool,
    samples: Mapping[tuple[str, str | None], Sample],
    top: int,
    resamples: int,
) -> GroupAgreement:
    scale = joined.scale
    grade = scale.kind is LabelKind.GRADE
    figures = agreement_figures(
        [p.score for p in pairs],
        [bool(p.label.positive) for p in pairs],
        threshold=threshold,
        values=None if scale.kind is LabelKind.BINARY else [p.label.value for p in pairs],
        grade_scale=(scale.low, scale.high) if grade else None,
        probability_like=probability_like,
        groups=[p.label.group for p in pairs],
        resamples=resamples,
    )
    good = sorted((p for p in pairs if p.label.positive), key=lambda p: (p.score, p.sample_id))
    bad = sorted((p for p in pairs if not p.label.positive), key=lambda p: (-p.score, p.sample_id))
    return GroupAgreement(
        system=system,
        figures=figures,
        missed=tuple(_disagreement(p, samples) for p in good[:top] if p.score < threshold),
        false_alarms=tuple(_disagreement(p, samples) for p in bad[:top] if p.score >= threshold),
    )


def metric_agreement(
    joined: Joined,
    labels: LabelSet,
    threshold: float,
    samples: Mapping[tuple[str, str | None], Sample],
    *,
    top: int = TOP,
    resamples: int = RESAMPLES,
) -> MetricAgreement:
    usable = [p for p in joined.pairs if p.label.positive is not None]
    probability_like = _probability_like(joined.metric)

    def group(system: str | None, pairs: Sequence[Pair]) -> GroupAgreement:
        return _group(joined, pairs, system, threshold, probability_like, samples, top, resamples)

    systems = joined.systems()
    by_system = (
        tuple(group(s, [p for p in usable if p.system == s]) for s in systems)
        if len(systems) > 1
        else ()
    )
    return MetricAgreement(
        metric=joined.metric,
        target=joined.target,
        scale=joined.scale.describe(),
        threshold=threshold,
        probability_like=probability_like,
        overall=group(None, usable),
        by_system=by_system,
        unscored=dict(joined.unscored),
        without_result=joined.without_result,
        missing_ids=tuple(joined.missing_ids),
        ambiguous=joined.ambiguous,
        tied=len(joined.pairs) - len(usable),
        inter_annotator=labels.inter_annotator.get(joined.target),
        grouped=any(p.label.group is not None for p in usable),
    )


def _probability_like(metric: str) -> bool:
    return metric in PROBABILITY_LIKE or metric.endswith(CALIBRATED)


def _paired(
    a: Joined, b: Joined, threshold_a: float, threshold_b: float, resamples: int
) -> PairedMetric:
    def key(p: Pair) -> tuple[str, str | None]:
        return (p.sample_id, p.system)

    in_b = {key(p): p for p in b.pairs if p.label.positive is not None}
    both = [(p, in_b[key(p)]) for p in a.pairs if p.label.positive is not None and key(p) in in_b]
    scale = a.scale
    figures = paired_figures(
        [pa.score for pa, _ in both],
        [pb.score for _, pb in both],
        [bool(pa.label.positive) for pa, _ in both],
        threshold_a=threshold_a,
        threshold_b=threshold_b,
        values=None if scale.kind is LabelKind.BINARY else [pa.label.value for pa, _ in both],
        grade_scale=(scale.low, scale.high) if scale.kind is LabelKind.GRADE else None,
        probability_like_a=_probability_like(a.metric),
        probability_like_b=_probability_like(b.metric),
        groups=[pa.label.group for pa, _ in both],
        resamples=resamples,
    )
    return PairedMetric(a.metric, len(both), figures)


def _calibrated(joined: Joined) -> Joined | None:
    """The metric's calibrated probabilities as a metric of their own, on the items that
    have one (``None`` where no result has one)."""
    have = [replace(p, score=p.calibrated) for p in joined.pairs if p.calibrated is not None]
    if not have:
        return None
    unscored = Counter(joined.unscored)
    if len(have) < len(joined.pairs):
        unscored[NO_PROBABILITY] += len(joined.pairs) - len(have)
    return Joined(
        joined.metric + CALIBRATED,
        joined.target,
        joined.scale,
        pairs=have,
        unscored=unscored,
        without_result=joined.without_result,
        missing_ids=joined.missing_ids,
        ambiguous=joined.ambiguous,
    )


def _run_metrics(
    joins: Sequence[Joined],
    labels: LabelSet,
    thresholds: Mapping[str, float],
    samples: Mapping[tuple[str, str | None], Sample],
    top: int,
    resamples: int,
) -> tuple[MetricAgreement, ...]:
    """Each labelled metric of one run, and after it, where the run was calibrated, its
    calibrated probability with the paired check calibrated − raw."""
    found = []
    for joined in joins:
        threshold = thresholds.get(joined.metric, DEFAULT_THRESHOLD)
        found.append(
            metric_agreement(joined, labels, threshold, samples, top=top, resamples=resamples)
        )
        calibrated = _calibrated(joined)
        if calibrated is None:
            continue
        raw = Joined(joined.metric, joined.target, joined.scale, pairs=[
            p for p in joined.pairs if p.calibrated is not None
        ])  # fmt: skip
        check = _paired(raw, calibrated, threshold, CALIBRATED_THRESHOLD, resamples)
        one = metric_agreement(
            calibrated, labels, CALIBRATED_THRESHOLD, samples, top=top, resamples=resamples
        )
        found.append(replace(one, against_raw=check))
    return tuple(found)


def _joined(name: str, records: Iterable[ResultRecord], labels: LabelSet) -> list[Joined]:
    try:
        return join(records, labels)
    except NoSharedItems as exc:
        raise NoSharedItems(f"{name}: {exc}") from None


def agreement_report(
    runs: Sequence[tuple[str, Iterable[ResultRecord], Mapping[str, float]]],
    labels: LabelSet,
    samples: Mapping[tuple[str, str | None], Sample] | None = None,
    *,
    top: int = TOP,
    resamples: int = RESAMPLES,
) -> AgreementReport:
    """The agreement of one run (or two, paired) with ``labels``. Each run is (its name,
    its results, its pass thresholds by metric)."""
    if not 1 <= len(runs) <= 2:
        raise ValueError("agreement compares one run, or two, with the labels")
    samples = samples or {}
    joined = [_joined(name, records, labels) for name, records, _ in runs]
    per_run = tuple(
        _run_metrics(joins, labels, thresholds, samples, top, resamples)
        for joins, (_, _, thresholds) in zip(joined, runs, strict=True)
    )
    paired: tuple[PairedMetric, ...] = ()
    if len(runs) == 2:
        in_b = {(j.metric, j.target): j for j in joined[1]}
        paired = tuple(
            _paired(
                j,
                in_b[(j.metric, j.target)],
                runs[0][2].get(j.metric, DEFAULT_THRESHOLD),
                runs[1][2].get(j.metric, DEFAULT_THRESHOLD),
                resamples,
            )
            for j in joined[0]
            if (j.metric, j.target) in in_b
        )
    unused = set.intersection(*(set(targets_without_metric(labels, joins)) for joins in joined))
    return AgreementReport(
        runs=tuple(name for name, _, _ in runs),
        labels=labels,
        metrics=per_run,
        paired=paired,
        targets_without_metric=tuple(t for t in labels.targets() if t in unused),
    )
