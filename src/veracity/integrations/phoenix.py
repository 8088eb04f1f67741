"""Evaluation results back to Arize Phoenix, as annotations of the spans they evaluate.

Each result of a sample read from Phoenix (``veracity run --from phoenix``) becomes an
annotation of the sample's span: named after the metric, with the score, a ``pass`` /
``fail`` label at the metric's threshold (the status for an unscored result) and the
reason as the explanation, the failing claims appended. Sending again (after a partial
failure, or to update) replaces the annotations instead of adding more: each carries an
identifier of the run and iteration, which Phoenix upserts on.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from veracity.integrations.otel import evaluation_attributes
from veracity.report.excerpts import failing_claims
from veracity.report.run_data import RunLike, load_run

__all__ = ["send_to_phoenix"]

MAX_EXPLANATION = 4_000


def _explanation(reason: str, details: Mapping[str, Any]) -> str:
    claims, more = failing_claims(dict(details))
    lines = [reason, *(f"{c['verdict']}: {c['claim']}" for c in claims)]
    if more:
        lines.append(f"… and {more} more failing claim(s)")
    text = "\n".join(lines)
    return text if len(text) <= MAX_EXPLANATION else text[: MAX_EXPLANATION - 1] + "…"


def send_to_phoenix(
    source: Path | str | RunLike, base_url: str, *, thresholds: Mapping[str, float] | None = None
) -> int:
    """Annotate, on the Phoenix at ``base_url``, the spans the results of ``source`` (a run
    directory or the result of ``evaluate``) evaluate; how many annotations were sent.
    Results of samples that did not come from a trace are left out."""
    from phoenix.client import Client
    from phoenix.client.__generated__.v1 import AnnotationResult, SpanAnnotationData

    from veracity.agreement.load import AgreementError, dataset_path, read_samples

    run = load_run(source, thresholds)
    try:
        samples = read_samples(dataset_path(run))
    except AgreementError:
        samples = {}
    run_id = str(run.manifest.started_at or "run")
    annotations: list[SpanAnnotationData] = []
    for record in run.records():
        sample = samples.get((record.sample_id, record.system))
        span_id = sample.metadata.get("span_id") if sample is not None else None
        if not isinstance(span_id, str) or not span_id:
            continue
        attributes = evaluation_attributes(record, run.threshold(record.metric))
        result: AnnotationResult = {
            "label": attributes["gen_ai.evaluation.score.label"],
            "explanation": _explanation(record.reason, record.details),
        }
        if record.score is not None:
            result["score"] = record.score
        annotations.append(
            {
                "name": f"veracity.{record.metric}",
                "span_id": span_id,
                "annotator_kind": "LLM",
                "result": result,
                "identifier": f"veracity {run_id} iteration {record.iteration}",
                "metadata": {"status": record.status.value, "sample_id": record.sample_id},
            }
        )
    if annotations:
        Client(base_url=base_url).spans.log_span_annotations(
            span_annotations=annotations, sync=True
        )
    return len(annotations)
