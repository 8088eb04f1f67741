"""OTLP JSON trace files as samples: OpenInference, OpenLLMetry and GenAI conventions,
traces that are not RAG requests skipped and counted, damaged files named by line."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.in_process import veracity
from veracity.traces import (
    UNREADABLE_LINE,
    TraceFileError,
    TraceReadWarning,
    samples_from_traces,
)

QUESTION = "When was the Eiffel Tower finished?"
DOCS = ["The Eiffel Tower was finished in 1889.", "It is 330 metres tall."]
ANSWER = "It was finished in 1889."


def _attrs(values: dict[str, Any]) -> list[dict[str, Any]]:
    def any_value(v: Any) -> dict[str, Any]:
        if isinstance(v, bool):
            return {"boolValue": v}
        if isinstance(v, int):
            return {"intValue": str(v)}
        if isinstance(v, float):
            return {"doubleValue": v}
        if isinstance(v, list):
            return {"arrayValue": {"values": [any_value(x) for x in v]}}
        return {"stringValue": str(v)}

    return [{"key": k, "value": any_value(v)} for k, v in values.items()]


def _span(trace: str, span: str, parent: str, start: int, attrs: dict[str, Any]) -> dict[str, Any]:
    return {
        "traceId": trace, "spanId": span, "parentSpanId": parent, "name": span,
        "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 10),
        "attributes": _attrs(attrs),
    }  # fmt: skip


def _request(spans: list[dict[str, Any]], service: str = "rag-api") -> dict[str, Any]:
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": _attrs({"service.name": service})},
                "scopeSpans": [{"scope": {"name": "openinference"}, "spans": spans}],
            }
        ]
    }


def openinference_trace(trace: str = "t1") -> list[dict[str, Any]]:
    """A RAG request as OpenInference writes it: a chain, its retriever, its LLM call."""
    documents = {f"retrieval.documents.{i}.document.content": d for i, d in enumerate(DOCS)}
    return [
        _span(trace, "chain", "", 0, {"openinference.span.kind": "CHAIN",
              "input.value": json.dumps({"query": QUESTION}), "output.value": ANSWER}),
        _span(trace, "retrieve", "chain", 1, {"openinference.span.kind": "RETRIEVER",
              "input.value": QUESTION, **documents}),
        _span(trace, "llm", "chain", 2, {
            "openinference.span.kind": "LLM",
            "llm.input_messages.0.message.role": "system",
            "llm.input_messages.0.message.content": "Answer from the context.",
            "llm.input_messages.1.message.role": "user",
            "llm.input_messages.1.message.content": "Tell me about the Eiffel Tower.",
            "llm.input_messages.2.message.role": "assistant",
            "llm.input_messages.2.message.content": "It is a tower in Paris.",
            "llm.input_messages.3.message.role": "user",
            "llm.input_messages.3.message.content": f"Context: {DOCS[0]}\n\n{QUESTION}",
            "llm.output_messages.0.message.content": ANSWER,
        }),
    ]  # fmt: skip


def _write(path: Path, *requests: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in requests), encoding="utf-8")
    return path


def test_an_openinference_rag_trace_becomes_a_sample(tmp_path: Path) -> None:
    found = samples_from_traces(_write(tmp_path / "t.jsonl", _request(openinference_trace())))
    (sample,) = found.samples
    assert (sample.question, sample.answer, sample.contexts) == (QUESTION, ANSWER, tuple(DOCS))
    assert [(t.role, t.content) for t in sample.history] == [
        ("user", "Tell me about the Eiffel Tower."),
        ("assistant", "It is a tower in Paris."),
    ]
    assert sample.system == "rag-api" and sample.id == "t1"
    assert sample.metadata == {
        "trace_id": "t1",
        "span_id": "chain",
        "retriever_span_ids": ["retrieve"],
    }


def test_traces_that_are_not_rag_requests_are_skipped_and_counted(tmp_path: Path) -> None:
    health = [_span("t2", "GET /health", "", 5, {"http.route": "/health"})]
    retrieved = {"retrieval.documents.0.document.content": DOCS[0]}
    no_answer = [_span("t3", "retrieve", "", 6, {"openinference.span.kind": "RETRIEVER",
                 "input.value": QUESTION, **retrieved})]  # fmt: skip
    path = _write(
        tmp_path / "t.jsonl", _request(openinference_trace() + health), _request(no_answer)
    )
    found = samples_from_traces(path)
    assert [s.id for s in found.samples] == ["t1"]
    assert found.skipped == {"no answer: not a RAG request": 1, "no answer in the trace": 1}
    assert found.traces == 3


def test_an_llm_call_alone_is_a_sample_without_contexts(tmp_path: Path) -> None:
    llm = [_span("t4", "chat", "", 0, {"gen_ai.operation.name": "chat",
           "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": QUESTION,
           "gen_ai.completion.0.content": ANSWER})]  # fmt: skip
    (sample,) = samples_from_traces(_write(tmp_path / "t.jsonl", _request(llm))).samples
    assert (sample.question, sample.answer, sample.contexts) == (QUESTION, ANSWER, ())


def test_genai_json_messages_and_a_json_array_file(tmp_path: Path) -> None:
    messages = [{"role": "user", "parts": [{"type": "text", "content": QUESTION}]}]
    output = [{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}]}]
    llm = [_span("t5", "chat", "", 0, {"gen_ai.operation.name": "chat",
           "gen_ai.input.messages": json.dumps(messages),
           "gen_ai.output.messages": json.dumps(output)})]  # fmt: skip
    path = tmp_path / "t.json"
    path.write_text(json.dumps([_request(llm)]), encoding="utf-8")
    (sample,) = samples_from_traces(path).samples
    assert (sample.question, sample.answer) == (QUESTION, ANSWER)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"spans": []}\n', ":1: not an OTLP trace export (no 'resourceSpans' array)"),
        ("\xff\xfe garbage\n", ":1: not JSON"),
        (
            '{"resourceSpans": ' + "[" * 1_500 + "]" * 1_500 + "}\n",
            ":1: not JSON that can be read (nested too deep)",
        ),
    ],
)
def test_a_file_with_no_export_request_is_named_by_line(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(text, encoding="utf-8", errors="surrogateescape")
    with pytest.raises(TraceFileError, match=re.escape(message)):
        samples_from_traces(path)


def test_a_damaged_line_is_a_counted_located_skip(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    good = json.dumps(_request(openinference_trace()))
    path.write_text(f'{good}\n{{"resourceSp\n{{"spans": []}}\n', encoding="utf-8")
    with pytest.warns(TraceReadWarning, match=f"2 {UNREADABLE_LINE}"):
        found = samples_from_traces(path)
    assert [s.id for s in found.samples] == ["t1"]
    assert found.skipped == {UNREADABLE_LINE: 2}
    where = found.tally.where(UNREADABLE_LINE)
    assert f"{path}:2: not JSON" in where and f"{path}:3: not an OTLP trace export" in where


def test_odd_values_are_read_not_crashed_on(tmp_path: Path) -> None:
    spans = openinference_trace()
    spans[0]["attributes"].append({"key": "deep", "value": {"kvlistValue": {"values": [
        {"key": "x", "value": {"arrayValue": {"values": [{"arrayValue": {"values": []}}] * 50}}}
    ]}}})  # fmt: skip
    spans[1]["attributes"].append(
        {"key": "retrieval.documents.9.document.content", "value": {"intValue": "7"}}
    )
    spans.append({"traceId": "t1", "spanId": 3})  # no attributes, a number for an id
    spans.append("not a span")  # type: ignore[arg-type]
    (sample,) = samples_from_traces(_write(tmp_path / "t.jsonl", _request(spans))).samples
    assert sample.contexts == tuple(DOCS)  # the number is not a document


def test_ten_thousand_spans_read_whole_in_start_order(tmp_path: Path) -> None:
    # How fast, and in how much memory: benchmarks/trace_reading.py.
    requests = [_request(openinference_trace(f"t{n}")) for n in range(3_334)]
    # A trace's spans split over two export requests, far apart in the file.
    split = openinference_trace("split")
    path = _write(tmp_path / "t.jsonl", _request(split[:1]), *requests, _request(split[1:]))
    found = samples_from_traces(path)
    assert len(found.samples) == 3_335
    split_sample = next(s for s in found.samples if s.id == "split")
    assert split_sample.contexts == tuple(DOCS) and split_sample.answer == ANSWER


def test_spans_without_a_trace_id_and_a_cycle_of_parents(tmp_path: Path) -> None:
    spans = openinference_trace("c1")
    spans[0]["parentSpanId"] = "llm"  # chain → llm → chain: no span is the root
    orphan = {**openinference_trace("x")[0], "traceId": ""}
    no_id = {k: v for k, v in openinference_trace("y")[0].items() if k != "traceId"}
    path = _write(tmp_path / "t.jsonl", _request([*spans, orphan, no_id]))
    found = samples_from_traces(path)
    (sample,) = found.samples  # the spans without a trace id are passed over
    assert (sample.id, sample.question, sample.answer) == ("c1", QUESTION, ANSWER)


def test_veracity_run_from_otlp_evaluates_the_traces(tmp_path: Path) -> None:
    health = [_span("t2", "GET /health", "", 5, {"http.route": "/health"})]
    path = _write(tmp_path / "traces.jsonl", _request(openinference_trace() + health))
    out = tmp_path / "run"
    proc = veracity("run", str(path), "--from", "otlp", "--judge",
         "offline", "--metrics", "faithfulness", "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "2 trace(s)" in proc.stderr and "1 sample(s)" in proc.stderr
    assert "no answer: not a RAG request: 1" in proc.stderr
    (result,) = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert result["sample_id"] == "t1" and result["status"] == "scored"
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["dataset"]["path"].endswith("trace_samples.jsonl")
    nowhere = veracity("send", str(out), "--url", "http://127.0.0.1:9")
    assert nowhere.returncode == 2 and "Phoenix at http://127.0.0.1:9" in nowhere.stderr
    assert "Traceback" not in nowhere.stderr
    again = veracity("run", str(path), "--from", "otlq",
         "--judge", "offline")  # fmt: skip
    assert (
        again.returncode == 2
        and "--from must be one of otlp, phoenix, langfuse, not 'otlq'" in again.stderr
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["http://127.0.0.1:9", "--from", "phoenix"],
            "Phoenix at http://127.0.0.1:9, project 'default'",
        ),
        (
            ["http://127.0.0.1:9", "--from", "phoenix", "--since", "yesterday"],
            "--since 'yesterday'",
        ),
        (
            ["/nonexistent/traces.jsonl", "--from", "otlp"],
            "dataset not found: /nonexistent/traces.jsonl",
        ),
    ],
)
def test_a_source_that_cannot_be_read_exits_2_with_a_message(
    tmp_path: Path, args: list[str], message: str
) -> None:
    proc = veracity("run", *args, "--judge", "offline",
         "--out", str(tmp_path / "run"))  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert message in " ".join(proc.stderr.split()) and "Traceback" not in proc.stderr
    assert not (tmp_path / "run" / "run.json").exists()


def test_a_damaged_json_attribute_is_passed_over_not_fatal(tmp_path: Path) -> None:
    llm = [_span("t6", "chat", "", 0, {"gen_ai.operation.name": "chat",
           "gen_ai.input.messages": "[{broken", "gen_ai.prompt.0.role": "user",
           "gen_ai.prompt.0.content": QUESTION,
           "gen_ai.completion.0.content": ANSWER})]  # fmt: skip
    (sample,) = samples_from_traces(_write(tmp_path / "t.jsonl", _request(llm))).samples
    assert (sample.question, sample.answer) == (QUESTION, ANSWER)
    broken = [_span("t7", "chat", "", 0, {"gen_ai.operation.name": "chat",
              "gen_ai.input.messages": "[{broken",
              "gen_ai.output.messages": "[{also"})]  # fmt: skip
    found = samples_from_traces(_write(tmp_path / "u.jsonl", _request(broken)))
    assert found.samples == [] and sum(found.skipped.values()) == 1


def _llm_with_template(trace: str, variables: object) -> list[dict[str, Any]]:
    return [_span(trace, "llm", "", 0, {
        "openinference.span.kind": "LLM",
        "llm.prompt_template.template": "Context: {context}\n\nQuestion: {question}",
        "llm.prompt_template.variables": json.dumps(variables),
        "llm.input_messages.0.message.role": "user",
        "llm.input_messages.0.message.content": f"Context: {DOCS[0]}\n\nQuestion: {QUESTION}",
        "llm.output_messages.0.message.content": ANSWER,
    })]  # fmt: skip


def test_the_context_passed_in_the_llms_prompt_is_a_context(tmp_path: Path) -> None:
    # No retriever span: the prompt template's variables hold the context and question.
    path = _write(
        tmp_path / "t.jsonl",
        _request(_llm_with_template("p1", {"context": DOCS[0], "question": QUESTION})),
        _request(_llm_with_template("p2", {"documents": DOCS, "query": QUESTION})),
        _request(_llm_with_template("p3", {"context": ["", 3, None]})),  # nothing usable
    )
    found = samples_from_traces(path).samples
    assert [(s.question, s.contexts) for s in found[:2]] == [
        (QUESTION, (DOCS[0],)),
        (QUESTION, tuple(DOCS)),
    ]
    assert found[2].contexts == () and found[2].question.endswith(QUESTION)


def test_a_prompts_context_made_of_the_retrieved_documents_is_not_added_again(
    tmp_path: Path,
) -> None:
    spans = openinference_trace("r1")
    joined = "\n\n".join(DOCS)
    spans[2]["attributes"] += _attrs({"llm.prompt_template.variables": json.dumps(
        {"context": joined, "question": QUESTION})})  # fmt: skip
    other = openinference_trace("r2")
    other[2]["attributes"] += _attrs({"llm.prompt_template.variables": json.dumps(
        {"context": [DOCS[1], "A note the prompt added."]})})  # fmt: skip
    found = samples_from_traces(_write(tmp_path / "t.jsonl", _request(spans), _request(other)))
    assert [s.contexts for s in found.samples] == [
        tuple(DOCS),
        (*DOCS, "A note the prompt added."),
    ]
