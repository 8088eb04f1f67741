"""The building blocks of the summary: one group of results, and judge variance.

A group keeps only the scores (and, per score, the number of the item it belongs to, so
the bootstrap can resample items rather than iterations), the status counts and the
label counts: memory proportional to the number of results, nothing else of them.
"""

from __future__ import annotations

import statistics
from array import array
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from veracity.report.keys import OVERALL
from veracity.report.statistics import bootstrap_ci, describe, pass_rate
from veracity.types import AnswerClass, ResultRecord, Status


def by_rule(stats: Mapping[str, Any]) -> int:
    """The results of a summary group with a score by rule, not a judgement (``no_claims``
    1.0, ``no_contexts``): counted in ``n_scored``, the mean and the pass rate like the
    others, and said apart where the statuses are listed."""
    judged = int(stats.get("counts_by_status", {}).get("scored", 0))
    return max(0, int(stats.get("n_scored", 0)) - judged)


# Labels some metrics put in their details, counted in the summary (with rates over the
# results that have one): correct / wrong / dont_know, the A–E grade, rubric pass or fail.
LABELS = {"classification": "classification", "grade": "grades", "passed": "passed"}
# Every label listed even at zero, so a reader never wonders whether one is missing.
KNOWN_LABELS = {
    "classification": [c.value for c in AnswerClass],
    "grades": ["A", "B", "C", "D", "E"],
    "passed": ["true", "false"],
}


# Claims worth a look, counted in a result's details and in the summary, with their words
# in the reports, in the order shown: supported on an evidence quote the contexts do not
# hold, supported although a name or number of theirs is nowhere in the contexts, not
# supported although they stand word for word in a context, supported by veracity over
# the judge since a context states them word for word, supported only on a second look,
# supported by the conversation.
CLAIM_NOTES = (
    ("evidence_not_found", "evidence not found"),
    ("unbacked_support", "supported, name or number not in contexts"),
    ("verbatim_not_supported", "not supported, yet word for word in a context"),
    ("overruled", "supported over the judge, stated word for word in a context"),
    (
        "supported_on_second_look",
        "supported on a second look, the claim alone against the context holding its words",
    ),
    ("supported_by_conversation", "supported by the conversation, not the contexts"),
)


@dataclass(slots=True)
class Group:
    """The results of one metric in one group (overall, a system, a question type…)."""

    scores: array[float] = field(default_factory=lambda: array("d"))
    items: array[int] = field(default_factory=lambda: array("q"))
    statuses: Counter[str] = field(default_factory=Counter)
    labels: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    n: int = 0
    # Claim verdicts (faithfulness-like metrics): how many, and how many of each kind
    # worth a look (:data:`CLAIM_NOTES`).
    claims: int | None = None
    claim_notes: Counter[str] = field(default_factory=Counter)
    # Results whose texts a local model read only the start of (``details["cut"]``).
    cut: int = 0
    # How the judge's replies were read (``details["reading"]``): question → path → replies.
    reading: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    # Calibrated probabilities (a run with ``--calibration``), with their items.
    calibrated: array[float] = field(default_factory=lambda: array("d"))
    calibrated_items: array[int] = field(default_factory=lambda: array("q"))

    def add(self, record: ResultRecord, item: int) -> None:
        self.n += 1
        self.statuses[record.status.value] += 1
        if record.score is not None:
            self.scores.append(record.score)
            self.items.append(item)
        for key, summary_key in LABELS.items():
            if key in record.details:
                value = record.details[key]
                label = str(value).lower() if isinstance(value, bool) else str(value)
                self.labels[summary_key][label] += 1
        if "n_claims" in record.details:
            self.claims = (self.claims or 0) + int(record.details["n_claims"])
            for key, _ in CLAIM_NOTES:
                self.claim_notes[key] += int(record.details.get(key, 0))
        self.cut += bool(record.details.get("cut"))
        for question, paths in _reading(record.details).items():
            self.reading[question].update(paths)
        if record.calibrated is not None:
            self.calibrated.append(record.calibrated)
            self.calibrated_items.append(item)

    def stats(self, threshold: float) -> dict[str, Any]:
        scores = list(self.scores)
        interval = bootstrap_ci(scores, list(self.items))
        return {
            "n": self.n,
            "n_scored": len(scores),
            **describe(scores),
            "ci95": None if interval is None else list(interval),
            "pass_rate": pass_rate(scores, threshold),
            "counts_by_status": {s.value: self.statuses[s.value] for s in Status},
            **{
                key: {
                    "counts": (full := {k: counts[k] for k in KNOWN_LABELS[key]} | counts),
                    "rates": {k: v / sum(counts.values()) for k, v in full.items()},
                }
                for key, counts in self.labels.items()
            },
            **(
                {}
                if self.claims is None
                else {
                    "claims": self.claims,
                    **{key: self.claim_notes[key] for key, _ in CLAIM_NOTES},
                }
            ),
            **({"cut": self.cut} if self.cut else {}),
            **(
                {"reading": {q: dict(sorted(c.items())) for q, c in sorted(self.reading.items())}}
                if self.reading
                else {}
            ),
            **({"calibrated": self._calibrated()} if self.calibrated else {}),
        }

    def _calibrated(self) -> dict[str, Any]:
        """The calibrated probabilities: their mean (the expected share of answers people
        would call good), its interval, and the share at or above one half."""
        values = list(self.calibrated)
        interval = bootstrap_ci(values, list(self.calibrated_items))
        return {
            "n": len(values),
            "mean": describe(values)["mean"],
            "ci95": None if interval is None else list(interval),
            "pass_rate": pass_rate(values, 0.5),
        }


def _reading(details: Mapping[str, Any]) -> dict[str, list[str]]:
    """``details["reading"]`` as written (question → paths); nothing of another shape."""
    found = details.get("reading")
    if not isinstance(found, Mapping):
        return {}
    return {
        str(question): [str(p) for p in paths]
        for question, paths in found.items()
        if isinstance(paths, list)
    }


# The way a judge is asked to reply: every other path is worth a line in the report.
STRICT = "strict"


def reading_line(summary: Mapping[str, Any]) -> str | None:
    """The judge replies not read as strict JSON, by metric and question (the path of
    each: fenced, repaired, a legacy text format, or why it could not be read), out of
    all replies; ``None`` when every reply was strict JSON, or no reply was read."""
    parts = []
    for metric, groups in (summary.get("metrics") or {}).items():
        overall = (groups.get(OVERALL) or {}) if isinstance(groups, Mapping) else {}
        reading = overall.get("reading") if isinstance(overall, Mapping) else None
        if not isinstance(reading, Mapping):
            continue
        for question, paths in reading.items():
            if not isinstance(paths, Mapping):
                continue
            other = {p: n for p, n in paths.items() if p != STRICT and n}
            if other:
                shown = ", ".join(f"{p} {n}" for p, n in other.items())
                parts.append(f"{metric} {question}: {shown} of {sum(paths.values())}")
    if not parts:
        return None
    return "judge replies not read as strict JSON: " + "; ".join(parts)


def caveats(stats: Mapping[str, Any]) -> list[str]:
    """What a group's scored results rest on that is worth a look, in words: the claims
    of :data:`CLAIM_NOTES`, and texts a local model read only the start of. Shown beside
    the statuses in every report."""
    found = [
        f"{words} {stats[key]}/{stats['claims']}" for key, words in CLAIM_NOTES if stats.get(key)
    ]
    if stats.get("cut"):
        found.append(f"cut to the model's length {stats['cut']}")
    return found


def calibrated_line(summary: Mapping[str, Any]) -> str | None:
    """The calibrated probabilities' means (a run with ``--calibration``), else ``None``."""
    parts = []
    for metric, groups in (summary.get("metrics") or {}).items():
        found = (
            (groups.get(OVERALL) or {}).get("calibrated") if isinstance(groups, Mapping) else None
        )
        if isinstance(found, Mapping) and found.get("n"):
            parts.append(f"{metric} {pct(found.get('mean'))} ({ci(found)}), {found['n']} result(s)")
    if not parts:
        return None
    return "calibrated P(people call it good), ×100: " + "; ".join(parts)


def cost_text(summary: Mapping[str, Any], *, in_a_row: bool = False) -> str:
    """The run's cost ("$0.0123"), or "cost unknown (…)" naming the models without a
    price when the run said which; ``in_a_row``: after a "cost" heading, "unknown (…)"."""
    cost = summary.get("cost") or {}
    total = cost.get("total_usd")
    if isinstance(total, int | float):
        return f"${total:.4f}"
    models = [str(m) for m in cost.get("unpriced_models") or ()]
    whose = f"for {', '.join(models)}" if models else "for this model"
    unknown = f"unknown (no price {whose}: add one under prices: in the config file)"
    return unknown if in_a_row else f"cost {unknown}"


def pct(value: float | None) -> str:
    """A share or score ×100, one decimal ("—" for none)."""
    return "—" if value is None else f"{100 * value:.1f}"


def ci(stats: Mapping[str, Any]) -> str:
    """A group's 95 % interval ×100 ("—" for none)."""
    interval = stats.get("ci95")
    return "—" if not interval else f"{pct(interval[0])}–{pct(interval[1])}"


@dataclass(slots=True)
class Spread:
    """Every item's scores across iterations, for the judge variance of one metric."""

    scores: dict[int, array[float]] = field(default_factory=dict)
    iterations: set[int] = field(default_factory=set)

    def add(self, item: int, record: ResultRecord) -> None:
        self.iterations.add(record.iteration)
        if record.score is not None:
            self.scores.setdefault(item, array("d")).append(record.score)

    def stats(self, threshold: float) -> dict[str, Any] | None:
        """``None`` with a single iteration; else per-item spread and the flip rate over
        the items scored in at least two iterations."""
        if len(self.iterations) < 2:
            return None
        repeated = [list(s) for s in self.scores.values() if len(s) > 1]
        stds = [statistics.stdev(s) for s in repeated]
        ranges = [max(s) - min(s) for s in repeated]
        flips = sum(len({score >= threshold for score in s}) > 1 for s in repeated)
        return {
            "iterations": len(self.iterations),
            "items_scored": len(self.scores),
            "items_compared": len(repeated),
            "std": _mean_max(stds),
            "range": _mean_max(ranges),
            "flipped_items": flips,
            "flip_rate": flips / len(repeated) if repeated else None,
        }


def _mean_max(values: list[float]) -> dict[str, float | None]:
    return {
        "mean": statistics.fmean(values) if values else None,
        "max": max(values) if values else None,
    }
