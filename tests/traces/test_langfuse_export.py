"""Langfuse exports as samples, shaped as its API returns traces with their observations
(no Langfuse server can run here): generations, retrievers of both SDK generations,
traces that are not RAG requests skipped, damaged exports named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from veracity.traces import (
    UNREADABLE_LINE,
    TraceFileError,
    TraceReadWarning,
    samples_from_traces,
)

QUESTION = "When was the Eiffel Tower finished?"
DOCS = ["The Eiffel Tower was finished in 1889.", "It is 330 metres tall."]
ANSWER = "It was finished in 1889."


def trace(trace_id: str = "lf-1", *, retriever_type: str = "RETRIEVER") -> dict[str, Any]:
    return {
        "id": trace_id, "name": "rag-api", "timestamp": "2026-11-20T10:00:00.000Z",
        "input": {"question": QUESTION}, "output": ANSWER, "sessionId": "s1",
        "observations": [
            {"id": "obs-r", "traceId": trace_id, "type": retriever_type, "name": "retrieve-docs",
             "startTime": "2026-11-20T10:00:00.100Z", "endTime": "2026-11-20T10:00:00.200Z",
             "input": QUESTION,
             "output": [{"page_content": DOCS[0], "metadata": {"id": 1}},
                        {"page_content": DOCS[1]}]},
            {"id": "obs-g", "traceId": trace_id, "type": "GENERATION", "name": "answer",
             "startTime": "2026-11-20T10:00:00.300Z", "endTime": "2026-11-20T10:00:01.000Z",
             "model": "gpt-4o-mini", "parentObservationId": None,
             "input": [{"role": "system", "content": "Answer from the context."},
                       {"role": "user", "content": "Tell me about the tower."},
                       {"role": "assistant", "content": "It is in Paris."},
                       {"role": "user", "content": f"{DOCS[0]}\n{QUESTION}"}],
             "output": {"role": "assistant", "content": ANSWER}},
        ],
    }  # fmt: skip


def _write(path: Path, payload: Any) -> Path:
    path.write_text(json.dumps(payload), encoding="utf-8")
    return path


@pytest.mark.parametrize("wrap", [lambda t: {"data": t}, lambda t: t], ids=["api", "array"])
def test_a_langfuse_trace_becomes_a_sample(tmp_path: Path, wrap: Any) -> None:
    found = samples_from_traces(_write(tmp_path / "lf.json", wrap([trace()])), kind="langfuse")
    (sample,) = found.samples
    assert (sample.question, sample.answer, sample.contexts) == (QUESTION, ANSWER, tuple(DOCS))
    assert [(t.role, t.content) for t in sample.history] == [
        ("user", "Tell me about the tower."),
        ("assistant", "It is in Paris."),
    ]
    assert (sample.id, sample.system, sample.metadata["trace_id"]) == ("lf-1", "rag-api", "lf-1")


def test_an_older_sdks_retrieval_span_and_one_trace_a_line(tmp_path: Path) -> None:
    older = trace("lf-2", retriever_type="SPAN")  # named "retrieve-docs": it retrieves
    path = tmp_path / "lf.jsonl"
    path.write_text(json.dumps(trace()) + "\n" + json.dumps(older) + "\n", encoding="utf-8")
    found = samples_from_traces(path, kind="langfuse")
    assert [s.contexts for s in found.samples] == [tuple(DOCS), tuple(DOCS)]


def test_traces_without_an_answer_are_skipped_and_counted(tmp_path: Path) -> None:
    chat_only = {"id": "lf-3", "name": "ping", "input": "hi", "observations": ["obs-1"]}
    found = samples_from_traces(_write(tmp_path / "lf.json", [trace(), chat_only]), kind="langfuse")
    assert [s.id for s in found.samples] == ["lf-1"]
    assert found.skipped == {"no answer: not a RAG request": 1}


@pytest.mark.parametrize(
    ("text", "message"), [("[1, 2]", "trace 1: not a Langfuse trace"), ("{broken", ":1: not JSON")]
)
def test_an_export_with_no_trace_is_named(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "lf.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TraceFileError, match=message):
        samples_from_traces(path, kind="langfuse")


def test_a_damaged_line_is_a_counted_located_skip(tmp_path: Path) -> None:
    path = tmp_path / "lf.jsonl"
    path.write_text(json.dumps(trace()) + "\n{broken\n", encoding="utf-8")
    with pytest.warns(TraceReadWarning, match=":2: not JSON"):
        found = samples_from_traces(path, kind="langfuse")
    assert [s.id for s in found.samples] == ["lf-1"]
    assert found.skipped == {UNREADABLE_LINE: 1}
    assert f"{path}:2: not JSON" in found.tally.where(UNREADABLE_LINE)
