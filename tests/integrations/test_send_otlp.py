"""Issue 48 item 13: ``veracity send RUN --to otlp`` — the run's ``gen_ai.evaluation.result``
events, linked to the spans evaluated, to a file as OTLP JSON and to an OTLP/HTTP endpoint
(a loopback receiver decoding what it gets as OTLP's protobuf); sending again never
duplicates; ``veracity --help`` names every destination."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.integrations.misbehaving import misbehaving
from tests.integrations.traced_runs import ANSWERS, span_id, trace_id, traced_run
from veracity.cli.app import app
from veracity.cli.common import err_console, out_console

pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")
pytest.importorskip("opentelemetry.exporter.otlp.proto.common")

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return traced_run(tmp_path_factory.mktemp("traced"))


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setattr(out_console, "_width", 250)
    monkeypatch.setattr(err_console, "_width", 250)
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    return CliRunner()


def _value(any_value: dict[str, Any]) -> Any:
    (kind, value), *_ = any_value.items()
    return int(value) if kind == "intValue" else value


def events_in_json(path: Path) -> list[dict[str, Any]]:
    """Every log record of the OTLP JSON file at ``path``, its attributes made a dict."""
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        for resource in json.loads(line)["resourceLogs"]:
            for scope in resource["scopeLogs"]:
                for record in scope["logRecords"]:
                    attributes = {a["key"]: _value(a["value"]) for a in record["attributes"]}
                    found.append({**record, "attributes": attributes})
    return found


def test_the_events_are_written_to_a_file_as_otlp_json_linked_to_the_spans(
    run_dir: Path, cli: CliRunner, tmp_path: Path
) -> None:
    out = tmp_path / "evaluations.otlp.jsonl"
    result = cli.invoke(app, ["send", str(run_dir), "--to", "otlp", "--url", str(out)])
    assert result.exit_code == 0, result.output
    assert f"wrote 2 gen_ai.evaluation.result event(s) to {out}, 2 linked" in result.output
    events = events_in_json(out)
    assert {e["eventName"] for e in events} == {"gen_ai.evaluation.result"}
    # Each event sits on the root span of the trace its sample came from (hex ids, as the
    # OTLP JSON encoding has them), and carries the result it reports.
    by_trace = {e["traceId"]: e for e in events}
    assert set(by_trace) == {trace_id(n) for n in range(len(ANSWERS))}
    for n in range(len(ANSWERS)):
        event = by_trace[trace_id(n)]
        assert event["spanId"] == span_id(n, 0)
        attributes = event["attributes"]
        assert attributes["gen_ai.evaluation.name"] == "faithfulness"
        assert attributes["veracity.sample_id"] == trace_id(n)
        assert attributes["gen_ai.evaluation.score.label"] in {"pass", "fail"}
        assert 0.0 <= attributes["gen_ai.evaluation.score.value"] <= 1.0
    results = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert sorted(e["attributes"]["gen_ai.evaluation.score.value"] for e in events) == sorted(
        r["score"] for r in results
    )


def test_sending_to_the_same_file_again_rewrites_it(
    run_dir: Path, cli: CliRunner, tmp_path: Path
) -> None:
    out = tmp_path / "evaluations.otlp.jsonl"
    args = ["send", str(run_dir), "--to", "otlp", "--url", str(out)]
    assert cli.invoke(app, args).exit_code == 0
    first = out.read_bytes()
    assert cli.invoke(app, args).exit_code == 0
    assert out.read_bytes() == first
    assert len(events_in_json(out)) == 2
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no temporary file left


class Collector:
    """An OTLP/HTTP logs receiver: decodes each request as OTLP's protobuf, keeps its
    records, and answers as a collector does (a partial success when told to)."""

    def __init__(self, rejected: int = 0) -> None:
        self.rejected = rejected
        self.paths: list[str] = []
        self.records: list[Any] = []

    def __call__(self, handler: Any) -> None:
        request = ExportLogsServiceRequest()
        request.ParseFromString(handler.server.state.received[-1][1])
        self.paths.append(handler.path)
        for resource in request.resource_logs:
            for scope in resource.scope_logs:
                self.records += list(scope.log_records)
        reply = ExportLogsServiceResponse()
        if self.rejected:
            reply.partial_success.rejected_log_records = self.rejected
            reply.partial_success.error_message = "attribute limit exceeded"
        body = reply.SerializeToString()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/x-protobuf")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.write(body)


def _attributes(record: Any) -> dict[str, Any]:
    return {kv.key: getattr(kv.value, kv.value.WhichOneof("value")) for kv in record.attributes}


def test_the_events_go_to_an_otlp_http_endpoint_and_a_resend_repeats_them_identically(
    run_dir: Path, cli: CliRunner
) -> None:
    collector = Collector()
    with misbehaving(collector) as server:
        for _ in range(2):
            result = cli.invoke(app, ["send", str(run_dir), "--to", "otlp", "--url", server.url])
            assert result.exit_code == 0, result.output
            assert f"sent 2 gen_ai.evaluation.result event(s) to {server.url}" in result.output
    assert collector.paths == ["/v1/logs", "/v1/logs"]
    assert len(collector.records) == 4
    for record in collector.records:
        assert record.event_name == "gen_ai.evaluation.result"
    linked = {(r.trace_id.hex(), r.span_id.hex()) for r in collector.records}
    assert linked == {(trace_id(n), span_id(n, 0)) for n in range(len(ANSWERS))}
    # Sent twice, each result is the same record twice: one stable id, one time.
    ids = Counter(_attributes(r)["veracity.result_id"] for r in collector.records)
    assert len(ids) == 2 and set(ids.values()) == {2}
    first, second = collector.records[:2], collector.records[2:]
    assert [r.SerializeToString() for r in first] == [r.SerializeToString() for r in second]


def test_events_the_endpoint_rejects_are_said(run_dir: Path, cli: CliRunner) -> None:
    with misbehaving(Collector(rejected=1)) as server:
        url = server.url + "/v1/logs"  # a logs endpoint given whole is used as it is
        result = cli.invoke(app, ["send", str(run_dir), "--to", "otlp", "--url", url])
    assert result.exit_code == 2
    assert "the OTLP endpoint rejected 1 event(s): attribute limit exceeded" in result.output
    assert server.received[0][0] == "/v1/logs"


def test_a_host_and_port_without_a_scheme_is_not_taken_for_a_file(
    run_dir: Path, cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli.invoke(app, ["send", str(run_dir), "--to", "otlp", "--url", "localhost:4318"])
    assert result.exit_code == 2 and "http://localhost:4318" in result.output
    assert list(tmp_path.iterdir()) == []


def test_the_top_level_help_names_every_destination(cli: CliRunner) -> None:
    listing = " ".join(cli.invoke(app, ["--help"]).output.replace("│", " ").split())
    start = listing.index(" send Send ")
    line = listing[start : listing.index(".", start)]  # its short help, wrapped or not
    for destination in ("Phoenix", "Langfuse", "OTLP"):
        assert destination in line
    send_help = cli.invoke(app, ["send", "--help"]).output
    for destination in ("phoenix", "langfuse", "otlp"):
        assert destination in send_help


def test_a_run_made_with_a_relative_out_is_linked_from_another_directory(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.integrations.traced_runs import write_traces

    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    monkeypatch.chdir(project)
    write_traces(project / "traces.jsonl")
    made = cli.invoke(
        app,
        ["run", "traces.jsonl", "--from", "otlp", "--judge", "offline", "--metrics",
         "faithfulness", "--out", "runs/prod"],
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    monkeypatch.chdir(elsewhere)
    out = elsewhere / "events.jsonl"
    sent = cli.invoke(app, ["send", str(project / "runs/prod"), "--to", "otlp", "--url", str(out)])
    assert sent.exit_code == 0 and "2 linked to the span they evaluate" in sent.output, sent.output
    assert {e["traceId"] for e in events_in_json(out)} == {trace_id(n) for n in range(len(ANSWERS))}
