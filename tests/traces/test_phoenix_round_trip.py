"""The Phoenix round trip, with a real Arize Phoenix on loopback (SQLite, started once for
the module): a pipeline instrumented with OpenInference sends its spans there; veracity
reads them from Phoenix, evaluates them, and writes the results back as span annotations,
which read back from Phoenix match the run's results; sending again adds none."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest
from openai import OpenAI
from openinference.instrumentation.openai import OpenAIInstrumentor

from tests.in_process import veracity
from veracity.integrations.phoenix import send_to_phoenix
from veracity.testing import FakeLLMServer
from veracity.testing.responders import scripted
from veracity.traces.phoenix_client import phoenix_client

if TYPE_CHECKING:
    from phoenix.client import Client

# Phoenix's client and otel entered as veracity enters them, without the ten seconds of
# imports of Phoenix's server (which runs in a process of its own) in every test process
# that collects this module; ``phoenix.client`` and ``phoenix.otel`` are imported after.
phoenix_client()

PROJECT = "toy-rag"
ROWS = [
    ("When was the Eiffel Tower finished?", ["The Eiffel Tower was finished in 1889."],
     "It was finished in 1889."),
    ("Where is the Louvre?", ["The Louvre is a museum in Paris."],
     "The Louvre is in Rome, next to the Colosseum."),
]  # fmt: skip


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("phoenix")
    port = _free_port()
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(folder),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(_free_port()),
        "PHOENIX_TELEMETRY_ENABLED": "false",  # loopback only
    }
    log = (folder / "server.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "phoenix.server.main", "serve"], env=env, stdout=log, stderr=log
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            assert server.poll() is None, (folder / "server.log").read_text(errors="replace")
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("Phoenix did not start within 120 s")
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


def _pipeline(phoenix: str, llm_url: str) -> None:
    from phoenix.otel import register

    provider = register(
        endpoint=f"{phoenix}/v1/traces", project_name=PROJECT, batch=False,
        set_global_tracer_provider=False, verbose=False,
    )  # fmt: skip
    OpenAIInstrumentor().instrument(tracer_provider=provider)
    tracer = provider.get_tracer("toy-rag")
    try:
        client = OpenAI(base_url=llm_url, api_key="test-key", max_retries=0)
        for question, documents, _ in ROWS:
            with tracer.start_as_current_span("rag") as root:
                root.set_attribute("openinference.span.kind", "CHAIN")
                root.set_attribute("input.value", question)
                with tracer.start_as_current_span("retrieve") as retriever:
                    retriever.set_attribute("openinference.span.kind", "RETRIEVER")
                    for i, document in enumerate(documents):
                        retriever.set_attribute(
                            f"retrieval.documents.{i}.document.content", document
                        )
                reply = client.chat.completions.create(
                    model="toy",
                    messages=[{"role": "user", "content": "\n".join(documents) + f"\n{question}"}],
                )
                root.set_attribute("output.value", reply.choices[0].message.content or "")
        client.close()
        provider.force_flush()
    finally:
        OpenAIInstrumentor().uninstrument()
        provider.shutdown()


def _spans_in(client: Client, project: str = PROJECT) -> int:
    try:
        return len(client.spans.get_spans(project_identifier=project, limit=100))
    except httpx.HTTPStatusError:  # 404 until its first span creates the project
        return 0


def test_phoenix_round_trip(phoenix: str, tmp_path: Path) -> None:
    from phoenix.client import Client

    with FakeLLMServer(scripted([answer for *_, answer in ROWS])) as llm:
        _pipeline(phoenix, llm.base_url)
    client = Client(base_url=phoenix)
    deadline = time.monotonic() + 30
    while _spans_in(client) < 6:  # Phoenix stores what it receives a moment later
        assert time.monotonic() < deadline, "the spans did not reach Phoenix"
        time.sleep(0.5)

    out = tmp_path / "run"
    proc = veracity("run", phoenix, "--from", "phoenix", "--project",
         PROJECT, "--since", "1h", "--judge", "offline", "--metrics", "faithfulness",
         "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "2 trace(s)" in proc.stderr and "2 sample(s)" in proc.stderr
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(results) == 2

    sent = veracity("send", str(out), "--to", "phoenix", "--url", phoenix)
    assert sent.returncode == 0 and "sent 2 annotation(s)" in sent.stdout, sent.stderr
    assert send_to_phoenix(out, phoenix) == 2  # again: replaces, never duplicates
    roots = [s for s in client.spans.get_spans(project_identifier=PROJECT) if s["name"] == "rag"]
    annotations = client.spans.get_span_annotations(
        span_ids=[s["context"]["span_id"] for s in roots], project_identifier=PROJECT
    )
    ours = [a for a in annotations if a["name"] == "veracity.faithfulness"]
    assert len(ours) == 2
    by_trace = {r["sample_id"]: r for r in results}
    trace_of = {s["context"]["span_id"]: s["context"]["trace_id"] for s in roots}
    for annotation in ours:
        result = by_trace[trace_of[annotation["span_id"]]]
        assert annotation["result"]["score"] == pytest.approx(result["score"])
        assert annotation["result"]["explanation"].startswith(result["reason"])
        label = "pass" if result["score"] >= 0.5 else "fail"
        assert annotation["result"]["label"] == label
        # The claims' probabilities travel with the score, into Phoenix and back.
        sent_claims = annotation["metadata"]["probabilities"]["claims"]
        assert [c["probabilities"]["supported"] for c in sent_claims] == pytest.approx(
            [c["p_supported"] for c in result["details"]["claims"]]
        )
    rome = next(a for a in ours if by_trace[trace_of[a["span_id"]]]["score"] < 0.5)
    assert "Rome" in rome["result"]["explanation"]  # the failing claim, named


@pytest.mark.filterwarnings("ignore:Calling .text\\(\\) as a method is deprecated")
def test_a_langchain_chain_reads_the_same_from_phoenix_as_from_its_otlp_file(
    phoenix: str, tmp_path: Path
) -> None:
    """A real LangChain retrieval chain (``{"input", "context", "answer"}`` at its root),
    traced to Phoenix and to a file at once: both sources give the chain's answer, never its
    question, and the same system (the project the trace is filed under)."""
    pytest.importorskip("openinference.instrumentation.langchain")
    from openinference.instrumentation.langchain import LangChainInstrumentor
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from phoenix.client import Client
    from phoenix.otel import register

    from tests.traces.test_framework_traces import QUESTION, WRONG, retrieval_chain, written
    from veracity.traces import samples_from_traces

    project = "langchain-rag"
    provider = register(
        endpoint=f"{phoenix}/v1/traces", project_name=project, batch=False,
        set_global_tracer_provider=False, verbose=False,
    )  # fmt: skip
    exporter = InMemorySpanExporter()
    # Phoenix's provider drops its own exporter for an added one unless told not to.
    provider.add_span_processor(  # register's own provider, typed as the SDK's
        SimpleSpanProcessor(exporter),
        replace_default_processor=False,  # type: ignore[call-arg]
    )
    LangChainInstrumentor().instrument(tracer_provider=provider)
    try:
        retrieval_chain()
        provider.force_flush()
    finally:
        LangChainInstrumentor().uninstrument()
        provider.shutdown()
    spans = exporter.get_finished_spans()
    client = Client(base_url=phoenix)
    deadline = time.monotonic() + 30
    while (stored := _spans_in(client, project)) < len(spans):
        assert time.monotonic() < deadline, f"{stored} of {len(spans)} spans reached Phoenix"
        time.sleep(0.5)

    from_file = samples_from_traces(written(spans, tmp_path / "t.jsonl"))
    from_phoenix = samples_from_traces(phoenix, kind="phoenix", project=project)
    (a,) = from_file.samples
    (b,) = from_phoenix.samples
    assert (a.question, a.answer) == (b.question, b.answer) == (QUESTION, WRONG)
    assert a.contexts == b.contexts and len(a.contexts) == 2
    assert a.system == b.system == project
    assert a.metadata["span_id"] != "" and b.metadata["span_id"] != ""
