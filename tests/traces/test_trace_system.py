"""A trace's system is one rule whatever the source reads it: the configured attribute,
else the project it is filed under, else the service it carries. (From Phoenix, the same
trace reads with the same system as from its OTLP file: test_phoenix_round_trip.py.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.traces.test_langfuse_export import trace as langfuse_trace
from tests.traces.test_otlp_traces import _attrs, openinference_trace
from veracity.config.traces import TraceMappingSpec
from veracity.traces import samples_from_traces


def _file(tmp_path: Path, resource: dict[str, Any], spans: list[dict[str, Any]]) -> Path:
    request = {"resourceSpans": [{"resource": {"attributes": _attrs(resource)},
                                  "scopeSpans": [{"spans": spans}]}]}  # fmt: skip
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(request) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("resource", "system"),
    [
        ({"service.name": "rag-prod", "openinference.project.name": "my-rag"}, "my-rag"),
        ({"service.name": "rag-prod"}, "rag-prod"),
        ({"service.name": "unknown_service:python", "openinference.project.name": "p"}, "p"),
        ({"service.name": "unknown_service"}, None),  # OpenTelemetry's placeholder: none
        ({}, None),
    ],
)
def test_the_project_the_trace_is_filed_under_then_its_service(
    tmp_path: Path, resource: dict[str, Any], system: str | None
) -> None:
    (sample,) = samples_from_traces(_file(tmp_path, resource, openinference_trace())).samples
    assert sample.system == system


def test_a_configured_attribute_comes_first(tmp_path: Path) -> None:
    spans = openinference_trace()
    spans[0]["attributes"] += _attrs({"deployment.variant": "bm25"})
    resource = {"service.name": "rag-prod", "openinference.project.name": "my-rag"}
    mapping = TraceMappingSpec(system=("deployment.variant",)).mapping()
    (sample,) = samples_from_traces(_file(tmp_path, resource, spans), mapping=mapping).samples
    assert sample.system == "bm25"


def test_a_langfuse_trace_carries_its_service_in_its_metadata(tmp_path: Path) -> None:
    sent_over_otel = {**langfuse_trace("lf-otel"),
                      "metadata": {"resourceAttributes": {"service.name": "rag-prod"}}}  # fmt: skip
    path = tmp_path / "lf.json"
    path.write_text(json.dumps([sent_over_otel, langfuse_trace()]), encoding="utf-8")
    found = samples_from_traces(path, kind="langfuse")
    # Langfuse keeps no project name and no other service: the trace's name stands in.
    assert {s.id: s.system for s in found.samples} == {"lf-otel": "rag-prod", "lf-1": "rag-api"}
