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

from veracity.integrations.otel import evaluation_attributes
from veracity.integrations.traced import explanation, traced_results
from veracity.report.run_data import RunLike

__all__ = ["send_to_phoenix"]


def send_to_phoenix(
    source: Path | str | RunLike, base_url: str, *, thresholds: Mapping[str, float] | None = None
) -> int:
    """Annotate, on the Phoenix at ``base_url``, the spans the results of ``source`` (a run
    directory or the result of ``evaluate``) evaluate; how many annotations were sent.
    Results of samples that did not come from a trace are left out."""
    from phoenix.client import Client
    from phoenix.client.__generated__.v1 import AnnotationResult, SpanAnnotationData

    annotations: list[SpanAnnotationData] = []
    for traced in traced_results(source, thresholds):
        record = traced.record
        attributes = evaluation_attributes(record, traced.threshold)
        result: AnnotationResult = {
            "label": attributes["gen_ai.evaluation.score.label"],
            "explanation": explanation(record.reason, record.details),
        }
        if record.score is not None:
            result["score"] = record.score
        annotations.append(
            {
                "name": f"veracity.{record.metric}",
                "span_id": traced.span_id,
                "annotator_kind": "LLM",
                "result": result,
                "identifier": f"veracity {traced.run_id} iteration {record.iteration}",
                "metadata": {"status": record.status.value, "sample_id": record.sample_id},
            }
        )
    if annotations:
        Client(base_url=base_url).spans.log_span_annotations(
            span_annotations=annotations, sync=True
        )
    return len(annotations)
