"""Assert helpers for RAG quality tests: thresholds on metric results, and failure messages
that say *why* (the unsupported claims with their verdicts, reasons and evidence), not just
which number was too low.

Plain functions over results (an :class:`~veracity.EvaluationResult` or result records);
they need no pytest fixture. A result without a score — a judge error, a missing
reference — is a failure with its status and reason, never a pass.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from veracity._suggest import did_you_mean
from veracity.evaluation import EvaluationResult
from veracity.report.excerpts import failing_claims
from veracity.types import MetricResult, ResultRecord, Status

Minimum = float | Mapping[str, float]
Results = EvaluationResult | Iterable[MetricResult]
# The minimum score when neither the test nor --veracity-threshold gives one (the
# summary's default pass threshold), for every helper alike.
DEFAULT_MINIMUM = 0.5
MAX_LISTED = 10  # failing results described in one message
MAX_ITEMS = 12  # failing claims (or statements, chunks...) described per result


class RagAssertionError(AssertionError):
    """A RAG quality assertion failed; the message lists what failed and why."""


def records_of(results: Results) -> list[MetricResult]:
    if isinstance(results, EvaluationResult):
        return list(results.results)
    if isinstance(results, MetricResult):
        return [results]
    return list(results)


def _minimum(value: Minimum | None, metric: str) -> float | None:
    found = value.get(metric) if isinstance(value, Mapping) else value
    if found is not None and not (math.isfinite(found) and 0.0 <= found <= 1.0):
        raise ValueError(f"a minimum score must be in [0, 1], not {found!r} ({metric})")
    return found


def _statuses(allow: Collection[str] | str) -> frozenset[str]:
    """The statuses of ``allow`` (one, or several); a name that is no status is an error, not
    a test that fails (or passes) for a reason nobody wrote."""
    names = [allow] if isinstance(allow, str) else list(allow)
    known = [status.value for status in Status]
    for name in names:
        if name not in known:
            raise ValueError(
                f"allow: unknown status {name!r}; {did_you_mean(name, known)}"
                f"statuses: {', '.join(known)}"
            )
    return frozenset(names)


def _who(result: MetricResult) -> str:
    if not isinstance(result, ResultRecord):
        return "result"
    where = f"sample {result.sample_id!r}"
    if result.system:
        where += f" (system {result.system!r})"
    if result.iteration:
        where += f" iteration {result.iteration}"
    return where


def _quote(text: Any, limit: int = 300) -> str:
    value = " ".join(str(text).split())
    return repr(value if len(value) <= limit else value[: limit - 1] + "…")


def _failing_items(details: Mapping[str, Any]) -> list[str]:
    """What in a result's details went wrong, one line (or a few) per item."""
    lines: list[str] = []
    claims, _ = failing_claims(dict(details), limit=None)  # describe() cuts the lines
    for claim in claims:
        kind = "claim" if claim["kind"] == "claim" else "reference statement"
        lines.append(f"✗ {claim['verdict']} {kind}: {_quote(claim['claim'])}")
        if claim.get("citations"):
            lines.append(f"    {claim['citations']}")
        if claim["reason"]:
            lines.append(f"    reason: {claim['reason']}")
        if claim["evidence"]:
            lines.append(f"    evidence: {_quote(claim['evidence'])}")
    for chunk in details.get("chunks") or []:
        if isinstance(chunk, Mapping) and chunk.get("relevant") is False:
            lines.append(f"✗ chunk #{chunk.get('index')} not relevant: {chunk.get('reason', '')}")
    for dim in details.get("dimensions") or []:
        if isinstance(dim, Mapping) and _below(dim.get("score"), dim.get("minimum")):
            lines.append(
                f"✗ {dim.get('name')}: {dim.get('score')}/5 (minimum {dim.get('minimum')}): "
                f"{dim.get('reasoning', '')}"
            )
    criteria = details.get("criteria")
    if isinstance(criteria, Mapping):
        for name, crit in criteria.items():
            if isinstance(crit, Mapping):
                lines.append(f"· {name} {crit.get('score')}/100: {crit.get('reasoning', '')}")
    if "classification" in details:
        lines.append(f"· classified as {details['classification']}")
    return lines


def _below(score: Any, minimum: Any) -> bool:
    numbers = (int, float)
    return isinstance(score, numbers) and isinstance(minimum, numbers) and score < minimum


def describe(result: MetricResult, minimum: float | None = None) -> str:
    """A result as a failure message reads it: score, status, reason and what failed."""
    if result.score is None:
        head = f"{_who(result)}: {result.metric} has no score ({result.status.value})"
    else:
        head = f"{_who(result)}: {result.metric} {result.score:.3f}"
        if minimum is not None:
            head += f" {'<' if result.score < minimum else '≥'} {minimum:g}"
    lines = [f"{head} — {result.reason}"]
    items = _failing_items(result.details)
    shown = items[:MAX_ITEMS]
    lines += [f"    {line}" for line in shown]
    if len(items) > len(shown):
        lines.append(f"    … {len(items) - len(shown)} more line(s)")
    return "\n".join(lines)


def _calibrated(records: list[MetricResult]) -> list[MetricResult]:
    """Each result with its calibrated probability as its score; one without a calibrated
    probability is a result without a score (which fails, with the reason why)."""
    found: list[MetricResult] = []
    for record in records:
        value = record.calibrated if isinstance(record, ResultRecord) else None
        if value is not None:
            found.append(record.model_copy(update={"score": value}))
        else:
            why = "no calibrated probability (was the run given calibration= for this metric?)"
            found.append(
                record.model_copy(update={"score": None, "status": Status.SKIPPED, "reason": why})
            )
    return found


def _by_metric(
    records: list[MetricResult], metrics: Collection[str] | None
) -> dict[str, list[MetricResult]]:
    grouped: dict[str, list[MetricResult]] = {}
    for record in records:
        if metrics is None or record.metric in metrics:
            grouped.setdefault(record.metric, []).append(record)
    for metric in metrics or ():
        if metric not in grouped:
            raise RagAssertionError(f"no {metric} result to check (was the metric evaluated?)")
    return grouped


def check_scores(
    results: Results,
    min_score: Minimum | None = None,
    *,
    min_mean: Minimum | None = None,
    metrics: Collection[str] | None = None,
    allow: Collection[str] = (),
    calibrated: bool = False,
) -> list[str]:
    """The failures (messages) of :func:`assert_scores`; empty when everything passes."""
    allowed = _statuses(allow)
    if isinstance(results, EvaluationResult) and results.bad_rows:
        return [f"invalid sample: {row.message}" for row in results.bad_rows]
    records = records_of(results)
    if calibrated:
        records = _calibrated(records)
    if not records:
        return ["there is no result to check"]
    failures: list[str] = []
    for metric, group in _by_metric(records, metrics).items():
        floor, mean_floor = _minimum(min_score, metric), _minimum(min_mean, metric)
        unscored = [r for r in group if r.score is None and r.status.value not in allowed]
        low = [r for r in group if r.score is not None and floor is not None and r.score < floor]
        bad = unscored + low
        scores = [r.score for r in group if r.score is not None]
        if mean_floor is not None:
            mean = sum(scores) / len(scores) if scores else None
            if mean is None or mean < mean_floor:
                got = "no scored result" if mean is None else f"mean {mean:.3f}"
                # Below the mean's floor, the results under it are the ones to look at.
                bad = unscored + sorted(
                    (r for r in group if r.score is not None and r.score < mean_floor),
                    key=lambda r: r.score or 0.0,
                )
                failures.append(
                    f"{metric}: {got} < {mean_floor:g} over {len(scores)} scored of "
                    f"{len(group)} result(s)"
                )
        elif bad:
            what = f"below {floor:g}" if floor is not None and low else "without a score"
            failures.append(f"{metric}: {len(bad)} of {len(group)} result(s) {what}")
        shown = bad[:MAX_LISTED]
        failures += [describe(r, floor if floor is not None else mean_floor) for r in shown]
        if len(bad) > len(shown):
            failures.append(f"… and {len(bad) - len(shown)} more failing {metric} result(s)")
    return failures


def assert_scores(
    results: Results,
    min_score: Minimum | None = None,
    *,
    min_mean: Minimum | None = None,
    metrics: Collection[str] | None = None,
    allow: Collection[str] = (),
    calibrated: bool = False,
) -> None:
    """Assert every result (of ``metrics``, default all) is scored and ≥ ``min_score``,
    and each metric's mean is ≥ ``min_mean``. A minimum is one number or one per metric.
    Results without a score fail unless their status is in ``allow`` (``"no_claims"``...).
    With ``calibrated=True`` the minimums apply to each result's calibrated probability
    (the offline judge's faithfulness by default, or a run given ``calibration=``), and a
    result without one fails.
    """
    __tracebackhide__ = True
    failures = check_scores(
        results, min_score, min_mean=min_mean, metrics=metrics, allow=allow,
        calibrated=calibrated,
    )  # fmt: skip
    if failures:
        raise RagAssertionError("\n".join(failures))


def assert_faithful(
    results: Results, min_score: float = DEFAULT_MINIMUM, *, allow: Collection[str] = ()
) -> None:
    """Assert every faithfulness result is scored and ≥ ``min_score`` (default 0.5, as
    ``rag_eval.assert_faithful``, which evaluates samples first and asserts the same);
    a result without a score fails unless its status is in ``allow``."""
    __tracebackhide__ = True
    assert_scores(results, min_score, metrics=["faithfulness"], allow=allow)
