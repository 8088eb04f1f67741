"""Evaluation results to OpenTelemetry, over OTLP: the ``gen_ai.evaluation.result`` events
:func:`~veracity.integrations.otel.emit_results` makes (each linked to the span its sample
came from, when it came from a trace), as one OTLP logs export request — sent to an
OTLP/HTTP endpoint in protobuf, as OpenTelemetry's own exporters send it, or written to a
file as OTLP JSON, one export request a line, as a collector's file exporter writes it.

Sending again never duplicates: a file is written anew (atomically, never half-written);
an endpoint has no upsert, so each event carries a stable ``veracity.result_id`` and the
run's start as its time, and a result sent again is an identical record, which a backend
can recognise as a repeat. The request to an endpoint is bounded as every send is (see
:mod:`veracity.integrations.sending`).
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veracity._scrub import scrub_secrets
from veracity.evaluation.blocking import run_blocking
from veracity.integrations.otel import emit_results
from veracity.integrations.sending import SEND_TIMEOUT_S, SendError, failure, send_client
from veracity.report.run_data import RunLike
from veracity.store.files import write_text_atomic
from veracity.transport.bounded import within_deadline
from veracity.transport.limits import checked_timeout

if TYPE_CHECKING:
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

__all__ = ["DEFAULT_OTLP_URL", "OtlpSent", "is_url", "otlp_destination", "send_to_otlp"]

DEFAULT_OTLP_URL = "http://localhost:4318"
LOGS_PATH = "/v1/logs"
_HOST_PORT = re.compile(r"^[\w.-]+:\d+(/|$)")  # "localhost:4318": a URL without its scheme
SERVICE = "veracity"


@dataclass(frozen=True, slots=True)
class OtlpSent:
    """What a send did: events sent (or written), how many of them are linked to the span
    they evaluate, and what the endpoint rejected (OTLP's partial success), if anything."""

    events: int
    linked: int
    rejected: int = 0
    message: str = ""


def is_url(destination: str | Path) -> bool:
    return isinstance(destination, str) and destination.lower().startswith(("http://", "https://"))


def otlp_destination(given: str | None) -> str:
    """Where ``--to otlp`` sends: ``given``, else the logs endpoint OpenTelemetry's
    variables name, else a collector on localhost. A ``host:port`` without a scheme is a
    ``ValueError`` (it would otherwise be written as a file of that name)."""
    found = (
        given
        or os.environ.get("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT")
        or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        or DEFAULT_OTLP_URL
    )
    if not is_url(found) and _HOST_PORT.match(found):
        raise ValueError(
            f"--url {found!r}: an OTLP endpoint needs its scheme (http://{found}); a file "
            "to write needs a name that is not host:port"
        )
    return found


def send_to_otlp(
    source: Path | str | RunLike,
    destination: str | Path,
    *,
    thresholds: Mapping[str, float] | None = None,
    timeout_s: float = SEND_TIMEOUT_S,
) -> OtlpSent:
    """Send the results of ``source`` (a run directory or the result of ``evaluate``) as
    ``gen_ai.evaluation.result`` events to ``destination``: an OTLP/HTTP endpoint (a URL;
    ``/v1/logs`` is added unless it ends so) or a file to (re)write as OTLP JSON. A
    destination that cannot take them is a :class:`SendError`."""
    timeout_s = checked_timeout(timeout_s)
    request, events, linked = _export_request(source, thresholds)
    if not events:
        return OtlpSent(0, 0)
    if not is_url(destination):
        path = Path(destination)
        try:
            write_text_atomic(path, [json.dumps(otlp_json(request)) + "\n"])
        except OSError as exc:
            raise SendError(f"cannot write {path}: {exc.strerror or exc}") from None
        return OtlpSent(events, linked)
    url = logs_url(str(destination))
    rejected, message = run_blocking(lambda: _post(url, request.SerializeToString(), timeout_s))
    return OtlpSent(events, linked, rejected, message)


def logs_url(url: str) -> str:
    """The logs endpoint of ``url`` (a collector's base URL, or its logs endpoint)."""
    trimmed = url.rstrip("/")
    return trimmed if trimmed.endswith(LOGS_PATH) else trimmed + LOGS_PATH


def _export_request(
    source: Path | str | RunLike, thresholds: Mapping[str, float] | None
) -> tuple[ExportLogsServiceRequest, int, int]:
    """The run's events as one export request; how many, and how many are linked."""
    try:
        from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
        from opentelemetry.sdk._logs import LoggerProvider
        from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
        from opentelemetry.sdk.resources import Resource

        try:
            from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter
        except ImportError:  # its older name
            from opentelemetry.sdk._logs.export import (
                InMemoryLogExporter as InMemoryLogRecordExporter,
            )
    except ImportError as exc:
        raise SendError(
            "sending over OTLP needs OpenTelemetry's SDK and OTLP encoding: "
            "pip install 'veracity[otel]'"
        ) from exc
    exporter = InMemoryLogRecordExporter()
    provider = LoggerProvider(resource=Resource({"service.name": SERVICE}), shutdown_on_exit=False)
    provider.add_log_record_processor(SimpleLogRecordProcessor(exporter))
    try:
        events = emit_results(source, logger_provider=provider, thresholds=thresholds)
        logs = exporter.get_finished_logs()
    finally:
        provider.shutdown()
    linked = sum(1 for log in logs if _record(log).span_id)
    return encode_logs(logs), events, linked


def _record(log: Any) -> Any:
    # The SDK's readable record wraps the record (older SDKs: LogData, the same).
    return getattr(log, "log_record", log)


def otlp_json(request: ExportLogsServiceRequest) -> dict[str, Any]:
    """``request`` in OTLP's JSON encoding: protobuf's JSON mapping, with trace and span
    ids in hex and enums as numbers, as the OTLP specification has them."""
    from google.protobuf.json_format import MessageToDict

    found = MessageToDict(request, use_integers_for_enums=True)
    for resource in found.get("resourceLogs", []):
        for scope in resource.get("scopeLogs", []):
            for record in scope.get("logRecords", []):
                if not record.get("body"):  # the SDK encodes "no body" as an empty value
                    record.pop("body", None)
                for key in ("traceId", "spanId"):
                    if key in record:
                        record[key] = base64.b64decode(record[key]).hex()
    return found


async def _post(url: str, body: bytes, timeout_s: float) -> tuple[int, str]:
    """POST ``body`` to the logs endpoint ``url``: how many records it rejected, and its
    message (OTLP's partial success)."""
    from google.protobuf.message import DecodeError
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
        ExportLogsServiceResponse,
    )
    from opentelemetry.util.re import parse_env_headers

    where = f"OTLP endpoint {url}"
    configured = os.environ.get("OTEL_EXPORTER_OTLP_LOGS_HEADERS") or os.environ.get(
        "OTEL_EXPORTER_OTLP_HEADERS", ""
    )
    headers = dict(parse_env_headers(configured, liberal=True))
    secrets = tuple(headers.values())
    headers["Content-Type"] = "application/x-protobuf"
    async with send_client(url, timeout_s, headers=headers) as http:
        try:
            response = await within_deadline(partial(http.post, url, content=body), timeout_s)
        except Exception as exc:  # httpx's errors, the bounds'
            raise failure(where, exc, *secrets) from None
    if not response.is_success:
        said = " ".join(response.text.split())[:300]
        for secret in secrets:
            said = scrub_secrets(said, secret)
        raise SendError(f"{where}: HTTP {response.status_code}: {scrub_secrets(said)}")
    reply = ExportLogsServiceResponse()
    try:
        if "json" in response.headers.get("content-type", ""):
            partial_success = json.loads(response.content or b"{}").get("partialSuccess") or {}
            return int(partial_success.get("rejectedLogRecords", 0)), str(
                partial_success.get("errorMessage", "")
            )
        reply.ParseFromString(response.content)
    except (DecodeError, ValueError, AttributeError, TypeError) as exc:
        raise SendError(f"{where}: its reply is not an OTLP export response ({exc})") from None
    return reply.partial_success.rejected_log_records, reply.partial_success.error_message
