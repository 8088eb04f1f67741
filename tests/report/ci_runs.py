"""A run in memory for the CI-format and tracker tests: hand-made records with every
outcome a report meets (pass, failure with claims, judge error, a metric that could not
apply), text no markup may break, and a manifest like a real run's."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.report.factory import claim, rec
from veracity.report import summarize
from veracity.types import ResultRecord, Status

# Text that XML, Markdown and workflow commands all read as markup, and a control
# character XML cannot hold at all.
HOSTILE = 'a <b>&amp; "q" | *x* `y` 50% \x07bell\n::error::'

MANIFEST: dict[str, Any] = {
    "veracity_version": "0.1.0",
    "judge": {
        "name": "openai/gpt-4o-mini",
        "provider": "openai",
        "model": "gpt-4o-mini",
        "prompts": {"claim_extraction": "abc123", "claim_verification": "def456"},
    },
    "metrics": ["faithfulness", "context_recall"],
    "settings": {"iterations": 1, "max_error_rate": 0.1, "thresholds": {"faithfulness": 0.7}},
}


def records() -> list[ResultRecord]:
    """Two systems; faithfulness: 2 passes, 1 failure, 1 judge error per system ... and
    context_recall (no threshold): scored, and one missing reference."""
    found = []
    for system in ("base", "rerank"):
        found += [
            rec(0.9, sample_id="s1", system=system, reason="all supported"),
            rec(1.0, sample_id="s2", system=system, reason="all supported"),
            rec(
                0.5,
                sample_id="s3",
                system=system,
                reason=f"1 of 2 supported {HOSTILE}",
                details={
                    "claims": [
                        claim("The tower is in Paris.", "supported"),
                        claim(f"The tower is green {HOSTILE}", "contradicted", "it is grey"),
                    ],
                    "n_claims": 2,
                },
            ),
            rec(None, sample_id="s4", system=system, reason="HTTP 503 after 8 attempts"),
            rec(0.8, metric="context_recall", sample_id="s1", system=system),
            rec(
                None,
                metric="context_recall",
                sample_id="s2",
                system=system,
                status=Status.MISSING_REFERENCE,
                reason="no reference answer",
            ),
        ]
    return [r.model_copy(update={"latency_s": 0.25, "cost_usd": 0.001}) for r in found]


@dataclass(frozen=True)
class FakeResult:
    """What ``EvaluationResult`` gives a report: summary, results and manifest."""

    results: tuple[ResultRecord, ...]
    manifest: dict[str, Any] = field(default_factory=lambda: dict(MANIFEST))
    summary: dict[str, Any] = field(default_factory=dict)


def result(items: list[ResultRecord] | None = None, **thresholds: float) -> FakeResult:
    """A result of ``items`` (default :func:`records`), summarised with ``thresholds``
    (default: the manifest's)."""
    items = records() if items is None else items
    given = thresholds or MANIFEST["settings"]["thresholds"]
    manifest = dict(MANIFEST) | {"settings": {**MANIFEST["settings"], "thresholds": given}}
    summary = summarize(items, MANIFEST["metrics"], given)
    return FakeResult(tuple(items), manifest, summary)


def write_run(path: Path) -> Path:
    """A run directory of :func:`records` as a run leaves it before its summary is
    written: ``run.json`` and ``results.jsonl``."""
    path.mkdir(parents=True)
    (path / "run.json").write_text(json.dumps(MANIFEST), encoding="utf-8")
    lines = [record.model_dump_json() + "\n" for record in records()]
    (path / "results.jsonl").write_text("".join(lines), encoding="utf-8")
    return path
