"""Plain-language recommendations, each from one explicit rule over the analysis' counts.

Every rule fires only on evidence: a minimum number of scored results, claims or
failures (the constants below), never on one unlucky sample. Rules about retrieval and
generation look at each system separately when a run has several, else at the whole run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from veracity.report.keys import DEFAULT_THRESHOLD, OVERALL
from veracity.report.tallies import CLAIM_COUNTS, ClaimTally, Tally

MIN_SCORED = 5  # results of a metric in a scope before its mean counts as evidence
MIN_CLAIMS = 3  # claims (and answers holding them) before a claim pattern counts
HIGH = 0.75  # a mean at or above this is "high"; "low" is below the metric's threshold
CONTRADICTED_SHARE = 0.2  # share of answers with a contradicted claim that is "many"
UNSUPPORTED_OVER_CONTRADICTED = 2.0
MIN_UNSUPPORTED = 5
JUDGE_ERROR_SHARE = 0.05
FLIP_RATE = 0.2
MIN_FLIP_ITEMS = 5

Recommendation = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the rules read: the analysis' tallies and the summary's metrics."""

    thresholds: Mapping[str, float]
    # (metric, "overall" | "system" | "question_type", group) → Tally
    tallies: Mapping[tuple[str, str, str], Tally]
    # (metric, system or OVERALL) → claim verdict counts
    claims: Mapping[tuple[str, str], ClaimTally]
    statuses: Mapping[str, Mapping[str, int]]
    unanswered: Mapping[str, int]  # judge errors without any reply, by metric
    patterns: Mapping[str, Any]
    metrics: Mapping[str, Any]

    def scopes(self) -> list[str]:
        """The systems when there are several, else the whole run."""
        systems = sorted({group for (_, dim, group) in self.tallies if dim == "system"})
        return systems if len(systems) > 1 else [OVERALL]

    def threshold(self, metric: str) -> float:
        return self.thresholds.get(metric, DEFAULT_THRESHOLD)

    def tally(self, metric: str, scope: str) -> Tally | None:
        key = (metric, "overall", OVERALL) if scope == OVERALL else (metric, "system", scope)
        return self.tallies.get(key)

    def mean(self, metric: str, scope: str) -> float | None:
        """The mean of ``metric`` in ``scope`` when there is enough of it to count."""
        tally = self.tally(metric, scope)
        return tally.mean if tally is not None and tally.n_scored >= MIN_SCORED else None


def _where(scope: str) -> str:
    return "" if scope == OVERALL else f"system '{scope}': "


def _item(
    rule: str, metric: str | None, scope: str, message: str, **evidence: Any
) -> Recommendation:
    return {
        "rule": rule,
        "metric": metric,
        "scope": scope,
        "message": message,
        "evidence": evidence,
    }


def retrieval_misses(ev: Evidence) -> list[Recommendation]:
    found = []
    for scope in ev.scopes():
        recall, faith = ev.mean("context_recall", scope), ev.mean("faithfulness", scope)
        if recall is None or faith is None:
            continue
        high = max(HIGH, ev.threshold("faithfulness"))
        if recall < ev.threshold("context_recall") and faith >= high:
            message = (
                f"{_where(scope)}context_recall is low ({recall:.2f}) while faithfulness is "
                f"high ({faith:.2f}): the answers keep to what was retrieved, but retrieval "
                "misses what the reference needs — look at the retriever (chunking, top-k)."
            )
            found.append(_item("retrieval_misses", "context_recall", scope, message,
                               context_recall=recall, faithfulness=faith))  # fmt: skip
    return found


def low_context_precision(ev: Evidence) -> list[Recommendation]:
    found = []
    for scope in ev.scopes():
        precision = ev.mean("context_precision", scope)
        if precision is not None and precision < ev.threshold("context_precision"):
            message = (
                f"{_where(scope)}context_precision is low ({precision:.2f}): most retrieved "
                "chunks are not relevant to the question — rerank them, or retrieve fewer "
                "and better chunks (lower top-k)."
            )
            found.append(_item("low_context_precision", "context_precision", scope, message,
                               context_precision=precision))  # fmt: skip
    return found


def contradicted_claims(ev: Evidence) -> list[Recommendation]:
    found = []
    scopes = set(ev.scopes())
    for (metric, scope), tally in sorted(ev.claims.items()):
        results, answers, contradicted = (tally.all[key] for key in CLAIM_COUNTS[:3])
        if scope not in scopes or results == 0:
            continue
        share = answers / results
        if contradicted >= MIN_CLAIMS and answers >= MIN_CLAIMS and share >= CONTRADICTED_SHARE:
            where = "" if scope == OVERALL else f" in system '{scope}'"
            message = (
                f"many contradicted claims{where} ({metric}: {contradicted} claims in "
                f"{answers} of {results} answers, {share:.0%}): "
                "the generator contradicts its contexts — check its prompt and that the "
                "contexts reach it intact."
            )
            found.append(_item("contradicted_claims", metric, scope, message,
                               contradicted=contradicted, answers=answers, of=results))  # fmt: skip
    return found


def unsupported_claims(ev: Evidence) -> list[Recommendation]:
    found = []
    scopes = set(ev.scopes())
    for (metric, scope), tally in sorted(ev.claims.items()):
        failing, _, contradicted, unsupported = (tally.failing[key] for key in CLAIM_COUNTS)
        if (
            scope in scopes
            and unsupported >= MIN_UNSUPPORTED
            and unsupported >= UNSUPPORTED_OVER_CONTRADICTED * contradicted
            and failing >= MIN_CLAIMS
        ):
            message = (
                f"{_where(scope)}failing answers mostly make claims the contexts do not "
                f"support ({unsupported} unsupported versus {contradicted} contradicted, in "
                f"{failing} failing answers): the generator adds knowledge of "
                "its own — tell it to answer only from the contexts, or retrieve more."
            )
            found.append(_item("unsupported_claims", metric, scope, message,
                               not_enough_info=unsupported, contradicted=contradicted,
                               failing_answers=failing))  # fmt: skip
    return found


def groups_fail_more(ev: Evidence) -> list[Recommendation]:
    found = []
    labels = {"by_system": "system", "by_question_type": "question type"}
    for metric, pattern in ev.patterns.items():
        average = pattern["failure_rate"]
        for key, label in labels.items():
            for group, stats in pattern[key].items():
                if not stats["flagged"]:
                    continue
                message = (
                    f"{label} '{group}' fails {stats['ratio_to_average']:.1f}× as often as "
                    f"average on {metric} ({stats['failure_rate']:.0%} versus {average:.0%}; "
                    f"{stats['failures']} of {stats['n_scored']} fail)."
                )
                found.append(_item("group_fails_more", metric, f"{label} {group}", message,
                                   failure_rate=stats["failure_rate"], average=average,
                                   ratio=stats["ratio_to_average"]))  # fmt: skip
    return found


def judge_errors(ev: Evidence) -> list[Recommendation]:
    found = []
    for metric, statuses in ev.statuses.items():
        errors, total = statuses.get("judge_error", 0), sum(statuses.values())
        if errors >= MIN_CLAIMS and errors / total >= JUDGE_ERROR_SHARE:
            unanswered = ev.unanswered.get(metric, 0)
            message = (
                f"{errors} judge errors on {metric} ({errors / total:.0%} of its results): "
                "those results are missing, not low — "
            )
            if unanswered * 2 >= errors:
                message += (
                    f"{unanswered} got no reply at all (timeouts, server errors, dropped "
                    "connections: each reason says which). A busy server (timeouts, 429) "
                    "calls for a longer --timeout, a lower --concurrency or an --rpm limit; "
                    "a failing one (5xx) for a look at the server, which slowing down will "
                    "not mend. Then the same command with --retry-errors asks the judge "
                    "again for those results only."
                )
            else:
                message += (
                    "read the raw replies in results.jsonl; a stronger judge model or "
                    "another --structured-output mode may help."
                )
            found.append(_item("judge_errors", metric, OVERALL, message, judge_errors=errors,
                               without_reply=unanswered, results=total))  # fmt: skip
    return found


def unstable_judge(ev: Evidence) -> list[Recommendation]:
    found = []
    for metric, stats in ev.metrics.items():
        variance = stats.get("judge_variance") if isinstance(stats, Mapping) else None
        if not variance or variance.get("flip_rate") is None:
            continue
        if variance["items_compared"] >= MIN_FLIP_ITEMS and variance["flip_rate"] >= FLIP_RATE:
            message = (
                f"the judge flips pass/fail on {variance['flip_rate']:.0%} of items between "
                f"iterations on {metric}: small differences are noise — use a stronger judge "
                "or more iterations."
            )
            found.append(_item("unstable_judge", metric, OVERALL, message,
                               flip_rate=variance["flip_rate"],
                               items=variance["items_compared"]))  # fmt: skip
    return found


RULES: tuple[Callable[[Evidence], list[Recommendation]], ...] = (
    retrieval_misses,
    low_context_precision,
    contradicted_claims,
    unsupported_claims,
    groups_fail_more,
    judge_errors,
    unstable_judge,
)


def recommend(evidence: Evidence) -> list[Recommendation]:
    return [found for rule in RULES for found in rule(evidence)]
