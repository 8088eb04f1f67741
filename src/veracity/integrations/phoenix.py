"""Evaluation results back to Arize Phoenix, as annotations of the spans they evaluate.

Each result of a sample read from Phoenix (``veracity run --from phoenix``) becomes an
annotation of the sample's span: named after the metric, with the score, a ``pass`` /
``fail`` label at the metric's threshold (the status for an unscored result) and the
reason as the explanation, the failing claims appended. Its annotator is ``LLM`` when a
model judged, ``CODE`` for the offline judge. Sending again (after a partial failure, or
to update) replaces the annotations instead of adding more: each carries an identifier of
the run and iteration, which Phoenix upserts on. Only Phoenix's client is imported, never
its server (see :mod:`veracity.traces.phoenix_client`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from veracity.evaluation.blocking import run_blocking
from veracity.integrations.otel import evaluation_attributes
from veracity.integrations.sending import SEND_TIMEOUT_S, SendError, failure, send_client
from veracity.integrations.traced import explanation, probability_metadata, traced_results
from veracity.report.run_data import RunData, RunLike, load_run
from veracity.traces.phoenix_client import phoenix_client
from veracity.transport.bounded import within_deadline
from veracity.transport.limits import checked_timeout

if TYPE_CHECKING:
    from phoenix.client.__generated__.v1 import AnnotationResult, SpanAnnotationData

__all__ = ["annotator_kind", "send_to_phoenix"]


def annotator_kind(run: RunData) -> Literal["CODE", "LLM"]:
    """Who annotated, in Phoenix's terms: code for the offline judge, else a model."""
    return "CODE" if run.judge.get("provider") == "offline" else "LLM"


def send_to_phoenix(
    source: Path | str | RunLike,
    base_url: str,
    *,
    thresholds: Mapping[str, float] | None = None,
    timeout_s: float = SEND_TIMEOUT_S,
) -> int:
    """Annotate, on the Phoenix at ``base_url``, the spans the results of ``source`` (a run
    directory or the result of ``evaluate``) evaluate; how many annotations Phoenix took.
    Results of samples that did not come from a trace are left out. The request is bounded
    as every send is (see :mod:`veracity.integrations.sending`: ``timeout_s`` seconds all
    told); a Phoenix that cannot be reached, refuses, breaks a bound or does not take them
    all is a :class:`SendError`."""
    timeout_s = checked_timeout(timeout_s)
    try:
        client = phoenix_client()
    except ImportError as exc:
        raise SendError(
            "sending to Phoenix needs its client: pip install 'veracity[phoenix]'"
        ) from exc
    run = load_run(source, thresholds)
    kind = annotator_kind(run)
    annotations: list[SpanAnnotationData] = []
    for traced in traced_results(run):
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
                "annotator_kind": kind,
                "result": result,
                "identifier": f"veracity {traced.run_id} iteration {record.iteration}",
                "metadata": {
                    "status": record.status.value,
                    "sample_id": record.sample_id,
                    **probability_metadata(record.details),
                },
            }
        )
    if not annotations:
        return 0
    return run_blocking(lambda: _post(client, base_url, annotations, timeout_s))


async def _post(
    client: Any, base_url: str, annotations: list[SpanAnnotationData], timeout_s: float
) -> int:
    from phoenix.client.utils.config import get_env_client_headers

    where = f"Phoenix at {base_url}"
    key = os.environ.get("PHOENIX_API_KEY")
    async with send_client(base_url, timeout_s, headers=get_env_client_headers()) as http:
        spans = client.AsyncClient(http_client=http).spans
        try:
            took = await within_deadline(
                partial(spans.log_span_annotations, span_annotations=annotations, sync=True),
                timeout_s,
            )
        except Exception as exc:  # httpx's errors, the client's, the bounds'
            raise failure(where, exc, key) from None
    count = len(took or [])
    if count != len(annotations):
        raise SendError(
            f"{where}: sent {len(annotations)} annotation(s), its reply names {count} as "
            "taken (sending again replaces those it holds, never duplicates them)"
        )
    return count
