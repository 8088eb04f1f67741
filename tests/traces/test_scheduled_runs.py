"""Production evaluated on a schedule: a later window's run judges only the traces it has
not seen, --filter chooses traces, and custom instrumentation is mapped in the config file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.helpers import offline_judge_or_skip
from tests.traces.test_otlp_traces import ANSWER, DOCS, QUESTION, _request, _span, _write
from tests.traces.test_otlp_traces import openinference_trace as trace
from veracity.cli.app import app
from veracity.config.traces import TraceMappingSpec
from veracity.traces import TraceFilter, samples_from_traces

offline_judge_or_skip()

OFFLINE = ("--judge", "offline", "--metrics", "faithfulness")


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    from veracity.cli.common import err_console, out_console

    monkeypatch.setattr(out_console, "_width", 250)
    monkeypatch.setattr(err_console, "_width", 250)
    return CliRunner()


def _sample_ids(run: Path) -> list[str]:
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    return [row["sample_id"] for row in rows]


def test_a_later_window_evaluates_only_the_new_traces(cli: CliRunner, tmp_path: Path) -> None:
    run = tmp_path / "prod"
    monday = _write(tmp_path / "mon.jsonl", *(_request(trace(f"t{n}")) for n in range(3)))
    # Tuesday's export overlaps Monday's: t2 again, then two new traces.
    tuesday = _write(tmp_path / "tue.jsonl", *(_request(trace(f"t{n}")) for n in range(2, 5)))
    first = cli.invoke(app, ["run", str(monday), "--from", "otlp", *OFFLINE, "--out", str(run)])
    assert first.exit_code == 0, first.output
    assert sorted(_sample_ids(run)) == ["t0", "t1", "t2"]
    second = cli.invoke(app, ["run", str(tuesday), "--from", "otlp", *OFFLINE, "--out", str(run)])
    assert second.exit_code == 0, second.output
    assert "evaluated before: 1" in second.output
    assert "resumed: 3 result(s)" in second.output
    assert sorted(_sample_ids(run)) == ["t0", "t1", "t2", "t3", "t4"]  # each once
    manifest = json.loads((run / "run.json").read_text())
    assert [a["results_new"] for a in manifest["attempts"]] == [3, 2]
    # The same window again: nothing new to judge, the run's summary still stands.
    again = cli.invoke(app, ["run", str(tuesday), "--from", "otlp", *OFFLINE, "--out", str(run)])
    assert again.exit_code == 0, again.output
    assert "evaluated before: 3" in again.output
    assert (
        json.loads((run / "summary.json").read_text())["metrics"]["faithfulness"]["overall"]["n"]
        == 5
    )


def test_a_sampled_window_leaves_the_traces_not_drawn_for_later(
    cli: CliRunner, tmp_path: Path
) -> None:
    run = tmp_path / "prod"
    traces = _write(tmp_path / "t.jsonl", *(_request(trace(f"t{n}")) for n in range(6)))
    args = ["run", str(traces), "--from", "otlp", *OFFLINE, "--out", str(run), "--sample", "2"]
    assert cli.invoke(app, args).exit_code == 0
    assert cli.invoke(app, [*args, "--seed", "1"]).exit_code == 0
    ids = _sample_ids(run)
    assert len(ids) == len(set(ids)) == 4


def test_filter_conditions_choose_the_traces(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "t.jsonl",
        _request(trace("a1"), service="rag-prod"),
        _request(trace("a2"), service="rag-staging"),
        _request(trace("a3"), service="rag-prod-eu"),
    )
    prod = samples_from_traces(path, where=["service.name=rag-prod*"])
    assert samples_from_traces(path, where="service.name=rag-prod*") == prod  # one condition
    assert [s.id for s in prod.samples] == ["a1", "a3"]
    assert prod.skipped == {"left out by --filter": 1}
    not_eu = samples_from_traces(path, where=["service.name=rag-prod*", "service.name!=*-eu"])
    assert [s.id for s in not_eu.samples] == ["a1"]
    by_kind = samples_from_traces(path, where=["openinference.span.kind=RETRIEVER", "name=llm"])
    assert len(by_kind.samples) == 3
    assert samples_from_traces(path, where=["no.such.attribute=*"]).samples == []
    assert len(samples_from_traces(path, where=["no.such.attribute!=*"]).samples) == 3


def test_a_filter_on_the_project_a_trace_is_filed_under(tmp_path: Path) -> None:
    def filed(trace_id: str, project: str) -> dict[str, Any]:
        request = _request(trace(trace_id))
        resource = request["resourceSpans"][0]["resource"]["attributes"]
        resource.append({"key": "openinference.project.name", "value": {"stringValue": project}})
        return request

    path = _write(tmp_path / "t.jsonl", filed("p1", "rag-prod"), filed("p2", "rag-lab"))
    kept = samples_from_traces(path, where=["project=rag-prod"])
    assert [s.id for s in kept.samples] == ["p1"]
    assert kept.skipped == {"left out by --filter": 1}
    # The project is not the service: a filter on the service names the service.
    assert samples_from_traces(path, where=["service.name=rag-prod"]).samples == []


@pytest.mark.parametrize("bad", ["", "=x", "service.name", "!x", "   "])
def test_a_bad_filter_is_named(bad: str, cli: CliRunner, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="expected KEY=PATTERN"):
        TraceFilter.parse([bad])
    path = _write(tmp_path / "t.jsonl", _request(trace()))
    out = ("--out", str(tmp_path / "run"))
    result = cli.invoke(app, ["run", str(path), "--from", "otlp", "--filter", bad, *OFFLINE, *out])
    assert result.exit_code == 2
    assert "--filter" in result.output and "Traceback" not in result.output


def _custom_trace(trace_id: str) -> list[dict[str, object]]:
    """A pipeline instrumented by hand: none of the conventions' keys."""
    return [
        _span(trace_id, "handle", "", 0, {"app.kind": "request", "app.question": QUESTION,
              "app.answer": ANSWER, "deploy.variant": "bm25"}),
        _span(trace_id, "search", "handle", 1, {"app.kind": "search",
              "app.hits": json.dumps([{"page_content": d} for d in DOCS])}),
    ]  # fmt: skip


def test_custom_instrumentation_is_mapped_in_the_config_file(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path / "t.jsonl", _request(_custom_trace("c1")))
    assert samples_from_traces(path).samples == []  # unmapped: not a RAG request
    spec = TraceMappingSpec(
        question=("app.question",), answer=("app.answer",), document_lists=("app.hits",),
        retriever_kinds=("search",), kind_keys=("app.kind",), system=("deploy.variant",),
    )  # fmt: skip
    (sample,) = samples_from_traces(path, mapping=spec.mapping()).samples
    assert (sample.question, sample.answer, sample.contexts) == (QUESTION, ANSWER, tuple(DOCS))
    assert sample.system == "bm25"
    assert sample.metadata["retriever_span_ids"] == ["search"]

    monkeypatch.chdir(tmp_path)
    Path("veracity.yaml").write_text(
        "traces:\n  question: [app.question]\n  answer: [app.answer]\n"
        "  document_lists: [app.hits]\n  retriever_kinds: [search]\n  kind_keys: [app.kind]\n"
    )
    result = cli.invoke(app, ["run", str(path), "--from", "otlp", *OFFLINE, "--out", "r"])
    assert result.exit_code == 0, result.output
    row = json.loads(Path("r/trace_samples.jsonl").read_text())
    assert row["contexts"] == DOCS


def test_ranked_document_keys_and_a_bad_pattern(tmp_path: Path) -> None:
    attributes = {"app.kind": "search", "app.question": QUESTION, "app.answer": ANSWER}
    span = _span(
        "d1", "root", "", 0, {**attributes, "app.doc.1.body": DOCS[1], "app.doc.0.body": DOCS[0]}
    )
    path = _write(tmp_path / "t.jsonl", _request([span]))
    spec = TraceMappingSpec(
        question=("app.question",), answer=("app.answer",), documents=("app.doc.*.body",),
        retriever_kinds=("search",), kind_keys=("app.kind",),
    )  # fmt: skip
    (sample,) = samples_from_traces(path, mapping=spec.mapping()).samples
    assert sample.contexts == tuple(DOCS)  # in rank order
    with pytest.raises(ValueError, match="needs one \\*"):
        TraceMappingSpec(documents=("app.docs",))


def test_a_bad_traces_section_of_the_config_is_named(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = _write(tmp_path / "t.jsonl", _request(trace()))
    Path("veracity.yaml").write_text("traces:\n  questions: [x]\n")
    result = cli.invoke(app, ["run", str(path), "--from", "otlp", *OFFLINE])
    assert result.exit_code == 2
    assert "traces" in result.output and "questions" in result.output
    assert "Traceback" not in result.output


def test_a_run_directory_another_run_is_writing_is_not_appended_to(
    cli: CliRunner, tmp_path: Path
) -> None:
    from filelock import FileLock

    run = tmp_path / "prod"
    run.mkdir()
    traces = _write(tmp_path / "t.jsonl", _request(trace("t1")))
    with FileLock(run / ".lock", thread_local=False):
        held = cli.invoke(app, ["run", str(traces), "--from", "otlp", *OFFLINE, "--out", str(run)])
    assert held.exit_code == 2
    assert f"another veracity run is writing {run}" in held.output
    assert not (run / "trace_samples.jsonl").exists()


def test_traces_another_run_appended_meanwhile_are_not_appended_twice(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from veracity.cli import from_traces

    run = tmp_path / "prod"
    traces = _write(tmp_path / "t.jsonl", *(_request(trace(f"t{n}")) for n in range(3)))
    reads = iter([set(), {"t1"}])  # t1 appended by another run after the first read
    real = from_traces._ids_in

    def ids_in(written: Path) -> set[str]:
        return next(reads, None) or real(written)

    monkeypatch.setattr(from_traces, "_ids_in", ids_in)
    result = cli.invoke(app, ["run", str(traces), "--from", "otlp", *OFFLINE, "--out", str(run)])
    assert result.exit_code == 0, result.output
    assert sorted(_sample_ids(run)) == ["t0", "t2"]
