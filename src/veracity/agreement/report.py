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

from rich.console import Console

from veracity.agreement.console import print_agreement
from veracity.agreement.gate import check_gates, parse_gates
from veracity.agreement.html import render_agreement_html
from veracity.agreement.join import (
    Joined,
    NoSharedItems,
    Pair,
    join,
    targets_without_metric,
)
from veracity.agreement.model import (
    Agreement,
    Disagreement,
    GroupAgreement,
    MetricAgreement,
    PairedMetric,
    Vote,
)
from veracity.agreement.statistics import RESAMPLES, agreement_figures, paired_figures
from veracity.labels import LabelKind, LabelSet
from veracity.metrics.registry import probability_metrics
from veracity.report.excerpts import cut
from veracity.report.keys import DEFAULT_THRESHOLD
from veracity.types import ResultRecord, Sample

TOP = 5
#: A calibrated probability's metric name is the metric's with this suffix, as in
#: ``--threshold faithfulness:calibrated=0.7``; at or above one half it counts as good.
CALIBRATED = ":calibrated"
CALIBRATED_THRESHOLD = 0.5
NO_PROBABILITY = "no calibrated probability"
_CLAIM_KEYS = ("claim", "verdict", "p_supported", "reason", "evidence", "evidence_not_found")


@dataclass(frozen=True, slots=True)
class AgreementReport(Agreement):
    """The agreement, as it shows itself: printed as tables, in a notebook as the page
    ``--html`` writes, and checked against gates."""

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

    def _repr_html_(self) -> str:
        """The agreement page, framed, as a notebook shows the report."""
        page = escape(render_agreement_html(self), quote=True)
        return (
            f'<iframe srcdoc="{page}" style="width:100%;height:640px;border:0" '
            'title="agreement with people"></iframe>'
        )

    def __str__(self) -> str:
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
        votes=tuple(Vote(annotator, value) for annotator, value in pair.label.votes),
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
    """Whether Brier and calibration error apply: the metric declares that its score reads
    as a probability, or it is a calibrated probability."""
    return metric in probability_metrics() or metric.endswith(CALIBRATED)


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
