"""Real LangChain, LangGraph and LlamaIndex RAG chains, instrumented with OpenInference and
run with their frameworks' fake models: their spans, written as the OTLP JSON a
collector's file exporter writes, read back with the chain's answer as the answer, never
the question the chain's output repeats beside it (``{"input", "context", "answer"}``,
``{"query", "result"}``, LangGraph's ``{"messages": [...]}``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypedDict

import pytest

pytest.importorskip("langchain_classic")
pytest.importorskip("langgraph")
pytest.importorskip("llama_index.core")
pytest.importorskip("openinference.instrumentation.langchain")
pytest.importorskip("openinference.instrumentation.llama_index")

from google.protobuf.json_format import MessageToDict
from langchain_classic.chains import (
    ConversationalRetrievalChain,
    RetrievalQA,
    create_retrieval_chain,
)
from langchain_classic.chains.combine_documents import create_stuff_documents_chain
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel, FakeListLLM
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda, RunnablePassthrough
from langgraph.graph import END, START, MessagesState, StateGraph
from llama_index.core import Document as LlamaDocument
from llama_index.core import VectorStoreIndex
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata
from llama_index.core.llms.callbacks import llm_completion_callback
from openinference.instrumentation import suppress_tracing
from openinference.instrumentation.langchain import LangChainInstrumentor
from openinference.instrumentation.llama_index import LlamaIndexInstrumentor
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.helpers import offline_judge_or_skip
from veracity.traces import ECHOED_QUESTION, ROOT_UNREAD, TraceReadWarning, samples_from_traces

# OpenInference's LangChain instrumentation calls a message's deprecated .text(): warned
# by LangChain (an error here), which would cost the span its attributes.
IGNORED = "ignore:Calling .text\\(\\) as a method is deprecated"
pytestmark = pytest.mark.filterwarnings(IGNORED)

DOCS = ["Insulin is produced by the pancreas.", "Bananas are rich in potassium."]
QUESTION = "Which organ produces insulin?"
WRONG = "Insulin is produced by the liver."  # what a bad chain answers
SERVICE = "rag-prod"


class ToyRetriever(BaseRetriever):
    """Every document, in rank order: an in-memory retriever."""

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return [Document(page_content=d) for d in DOCS]


def _joined(documents: Sequence[Document]) -> str:
    return "\n\n".join(d.page_content for d in documents)


def _chat_prompt() -> ChatPromptTemplate:
    return ChatPromptTemplate.from_messages(
        [("system", "Answer from the context:\n{context}"), ("human", "{input}")]
    )


def retrieval_qa() -> Any:  # output {"query", "result"}
    llm = FakeListLLM(responses=[WRONG])
    chain = RetrievalQA.from_chain_type(llm=llm, retriever=ToyRetriever())
    return chain.invoke({"query": QUESTION})


def retrieval_chain() -> Any:  # output {"input", "context", "answer"}
    answer = create_stuff_documents_chain(FakeListChatModel(responses=[WRONG]), _chat_prompt())
    return create_retrieval_chain(ToyRetriever(), answer).invoke({"input": QUESTION})


def conversational() -> Any:  # output {"question", "chat_history", "answer"}
    chain = ConversationalRetrievalChain.from_llm(
        FakeListLLM(responses=[WRONG]), retriever=ToyRetriever()
    )
    return chain.invoke({"question": QUESTION, "chat_history": []})


def lcel() -> Any:  # output: the parsed text
    prompt = ChatPromptTemplate.from_messages([("human", "{context}\n\n{question}")])
    chain = (
        {"context": ToyRetriever() | RunnableLambda(_joined), "question": RunnablePassthrough()}
        | prompt
        | FakeListChatModel(responses=[WRONG])
        | StrOutputParser()
    )
    return chain.invoke(QUESTION)


def langgraph_messages() -> Any:  # output {"messages": [human, ai (documents), ai (answer)]}
    model = FakeListChatModel(responses=[WRONG])

    def retrieve(state: MessagesState) -> dict[str, list[BaseMessage]]:
        found = ToyRetriever().invoke(str(state["messages"][-1].content))
        return {"messages": [AIMessage(content=_joined(found))]}

    def generate(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [model.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("retrieve", retrieve)
    graph.add_node("generate", generate)
    graph.add_edge(START, "retrieve")
    graph.add_edge("retrieve", "generate")
    graph.add_edge("generate", END)
    return graph.compile().invoke({"messages": [HumanMessage(content=QUESTION)]})


class RagState(TypedDict, total=False):
    question: str
    context: list[Document]
    answer: str


def langgraph_state() -> Any:  # output {"question", "context", "answer"}
    prompt = ChatPromptTemplate.from_messages([("human", "{context}\n\n{question}")])
    model = FakeListChatModel(responses=[WRONG])

    def retrieve(state: RagState) -> RagState:
        return {"context": ToyRetriever().invoke(state["question"])}

    def generate(state: RagState) -> RagState:
        asked = prompt.invoke({"context": _joined(state["context"]), "question": state["question"]})
        return {"answer": str(model.invoke(asked).content)}

    graph = StateGraph(RagState)
    graph.add_node("retrieve", retrieve)
    graph.add_node("generate", generate)
    graph.add_edge(START, "retrieve")
    graph.add_edge("retrieve", "generate")
    graph.add_edge("generate", END)
    return graph.compile().invoke({"question": QUESTION})


class WrongLLM(CustomLLM):
    """LlamaIndex's custom-LLM interface, answering as a bad model would."""

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name="wrong")

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=WRONG)

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        yield CompletionResponse(text=WRONG, delta=WRONG)


def llama_index() -> Any:  # output: the Response's text
    with suppress_tracing():  # building the index is not the request
        index = VectorStoreIndex.from_documents(
            [LlamaDocument(text=d) for d in DOCS], embed_model=MockEmbedding(embed_dim=8)
        )
    engine = index.as_query_engine(llm=WrongLLM(), similarity_top_k=2)
    return str(engine.query(QUESTION))


@pytest.fixture
def traced() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": SERVICE}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    LangChainInstrumentor().instrument(tracer_provider=provider)
    LlamaIndexInstrumentor().instrument(tracer_provider=provider)
    try:
        yield exporter
    finally:
        LangChainInstrumentor().uninstrument()
        LlamaIndexInstrumentor().uninstrument()
        provider.shutdown()


def written(spans: Sequence[ReadableSpan], path: Path) -> Path:
    """The spans as a collector's file exporter writes them: one export request a line."""
    path.write_text(json.dumps(MessageToDict(encode_spans(spans))) + "\n", encoding="utf-8")
    return path


CHAINS: list[Callable[[], Any]] = [
    retrieval_qa,
    retrieval_chain,
    conversational,
    lcel,
    langgraph_messages,
    langgraph_state,
    llama_index,
]


@pytest.mark.parametrize("chain", CHAINS, ids=[c.__name__ for c in CHAINS])
def test_a_real_chains_answer_is_read_never_its_question(
    chain: Callable[[], Any], traced: InMemorySpanExporter, tmp_path: Path
) -> None:
    output = chain()
    assert WRONG in json.dumps(output, default=str)  # the chain ran, and answered
    found = samples_from_traces(written(traced.get_finished_spans(), tmp_path / "t.jsonl"))
    (sample,) = found.samples
    assert (sample.question, sample.answer) == (QUESTION, WRONG)
    assert set(DOCS) <= set(sample.contexts) or DOCS[0] in "\n".join(sample.contexts)
    assert sample.system == SERVICE
    assert not found.doubted and not found.skipped


def _root_output(spans: Sequence[ReadableSpan]) -> str:
    (root,) = [s for s in spans if s.parent is None]
    return str((root.attributes or {})["output.value"])


@pytest.mark.parametrize(
    ("chain", "shape"),
    [
        (retrieval_chain, {"input", "context", "answer"}),
        (langgraph_state, {"question", "context", "answer"}),
        (langgraph_messages, {"messages"}),
    ],
)
def test_the_answer_is_read_from_the_roots_output_alone(
    chain: Callable[[], Any], shape: set[str], traced: InMemorySpanExporter, tmp_path: Path
) -> None:
    # The chain's own spans without its LLM calls (an uninstrumented model): the answer
    # can only come from the root's output, whose keys the frameworks chose.
    chain()
    spans = traced.get_finished_spans()
    assert set(json.loads(_root_output(spans))) == shape
    kept = [s for s in spans if (s.attributes or {}).get("openinference.span.kind") != "LLM"]
    (sample,) = samples_from_traces(written(kept, tmp_path / "t.jsonl")).samples
    assert (sample.question, sample.answer) == (QUESTION, WRONG)


def _with_root_output(path: Path, output: str) -> Path:
    """The file with its root span's ``output.value`` replaced."""
    request = json.loads(path.read_text(encoding="utf-8"))
    for resource in request["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                if not span.get("parentSpanId"):
                    for attribute in span["attributes"]:
                        if attribute["key"] == "output.value":
                            attribute["value"] = {"stringValue": output}
    path.write_text(json.dumps(request) + "\n", encoding="utf-8")
    return path


def test_a_root_output_echoing_the_question_gives_way_to_the_llms_answer(
    traced: InMemorySpanExporter, tmp_path: Path
) -> None:
    retrieval_chain()
    spans = traced.get_finished_spans()
    echoed = {"input": QUESTION, "context": DOCS, "output": QUESTION}
    path = _with_root_output(written(spans, tmp_path / "t.jsonl"), json.dumps(echoed))
    with pytest.warns(TraceReadWarning, match=f"1 {ECHOED_QUESTION} \\(trace "):
        found = samples_from_traces(path)
    (sample,) = found.samples
    assert sample.answer == WRONG  # the last LLM call's
    assert found.doubted == {ECHOED_QUESTION: 1}
    # With no LLM call to fall back on, the trace is skipped and counted, never scored.
    kept = [s for s in spans if (s.attributes or {}).get("openinference.span.kind") != "LLM"]
    path = _with_root_output(written(kept, tmp_path / "u.jsonl"), QUESTION)
    with pytest.warns(TraceReadWarning, match=ECHOED_QUESTION):
        found = samples_from_traces(path)
    assert found.samples == [] and found.skipped == {ECHOED_QUESTION: 1}
    assert found.tally.where(ECHOED_QUESTION).startswith("trace ")
    assert f"({path}:1)" in found.tally.where(ECHOED_QUESTION)  # the file and line


def test_a_root_output_without_an_answer_key_is_said(
    traced: InMemorySpanExporter, tmp_path: Path
) -> None:
    retrieval_chain()
    spans = traced.get_finished_spans()
    odd = json.dumps({"input": QUESTION, "verdict": WRONG})
    with pytest.warns(TraceReadWarning, match=ROOT_UNREAD):
        found = samples_from_traces(_with_root_output(written(spans, tmp_path / "t.jsonl"), odd))
    assert [s.answer for s in found.samples] == [WRONG] and found.doubted == {ROOT_UNREAD: 1}
    kept = [s for s in spans if (s.attributes or {}).get("openinference.span.kind") != "LLM"]
    with pytest.warns(TraceReadWarning, match=ROOT_UNREAD):
        found = samples_from_traces(_with_root_output(written(kept, tmp_path / "u.jsonl"), odd))
    assert found.samples == [] and found.skipped == {ROOT_UNREAD: 1}


def test_veracity_run_scores_the_chains_answer_and_says_what_it_doubted(
    traced: InMemorySpanExporter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    offline_judge_or_skip()
    from typer.testing import CliRunner

    from veracity.cli.app import app
    from veracity.cli.common import err_console, out_console

    monkeypatch.setattr(out_console, "_width", 250)
    monkeypatch.setattr(err_console, "_width", 250)
    retrieval_chain()
    good = written(traced.get_finished_spans(), tmp_path / "good.jsonl")
    traced.clear()
    retrieval_chain()
    echoed = _with_root_output(written(traced.get_finished_spans(), tmp_path / "e.jsonl"), QUESTION)
    path = tmp_path / "traces.jsonl"
    path.write_text(good.read_text() + echoed.read_text(), encoding="utf-8")
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", str(path), "--from", "otlp", "--judge", "offline",
                                      "--metrics", "faithfulness", "--out", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "2 trace(s)" in said and "2 sample(s)" in said
    assert f"warning: 1 trace(s): {ECHOED_QUESTION}" in said and f"{path}:2" in said
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 2
    # The wrong answer is judged as the answer: not "no factual claim", not a perfect score.
    assert all(row["score"] is not None and row["score"] < 0.5 for row in rows), rows
    read = json.loads((out / "run.json").read_text())["settings"]["traces_read"]
    assert read == {"source": "otlp", "traces": 2, "samples": 2, "skipped": {},
                    "doubted": {ECHOED_QUESTION: 1}}  # fmt: skip


def test_an_llm_call_repeating_its_question_is_skipped(tmp_path: Path) -> None:
    from tests.traces.test_otlp_traces import _request, _span

    llm = [_span("echo", "chat", "", 0, {"gen_ai.operation.name": "chat",
           "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": QUESTION,
           "gen_ai.completion.0.content": f"  {QUESTION.upper()} "})]  # fmt: skip
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(_request(llm)) + "\n", encoding="utf-8")
    with pytest.warns(TraceReadWarning, match=ECHOED_QUESTION):
        found = samples_from_traces(path)
    assert found.samples == [] and found.skipped == {ECHOED_QUESTION: 1}


LC_AI = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"],
         "kwargs": {"content": WRONG, "type": "ai"}}  # fmt: skip


@pytest.mark.parametrize(
    "output",
    [
        {"query": QUESTION, "result": WRONG},  # RetrievalQA
        {"result": WRONG},
        {"input": QUESTION, "context": DOCS, "answer": WRONG},  # create_retrieval_chain
        {"question": QUESTION, "chat_history": [], "answer": WRONG},  # Conversational…
        {"input_documents": DOCS, "question": QUESTION, "output_text": WRONG},  # load_qa_chain
        {"input": QUESTION, "output": WRONG},  # AgentExecutor
        {"response": WRONG, "source_nodes": []},  # LlamaIndex
        {"answer": {"type": "ai", "data": {"content": WRONG}}},  # a message as the answer
        {"messages": [{"type": "human", "data": {"content": QUESTION}},
                      {"type": "ai", "data": {"content": WRONG}},
                      {"type": "tool", "data": {"content": "lookup done"}}]},  # LangGraph
        {"messages": [{"role": "user", "content": QUESTION},
                      {"role": "assistant", "content": [{"type": "text", "text": WRONG}]}]},
        {"messages": [{"lc": 1, "type": "constructor", "id": ["HumanMessage"],
                       "kwargs": {"content": QUESTION, "type": "human"}}, LC_AI]},
        {"messages": [["user", QUESTION], ["assistant", WRONG]]},  # LangChain's pairs
    ],
)  # fmt: skip
def test_the_answer_keys_the_frameworks_write(output: dict[str, Any], tmp_path: Path) -> None:
    from tests.traces.test_otlp_traces import _request, _span

    spans = [
        _span("t", "chain", "", 0, {"openinference.span.kind": "CHAIN",
              "input.value": json.dumps({"question": QUESTION}),
              "output.value": json.dumps(output)}),
        _span("t", "retrieve", "chain", 1, {"openinference.span.kind": "RETRIEVER",
              "retrieval.documents.0.document.content": DOCS[0]}),
    ]  # fmt: skip
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(_request(spans)) + "\n", encoding="utf-8")
    (sample,) = samples_from_traces(path).samples
    assert (sample.question, sample.answer) == (QUESTION, WRONG)


def test_a_langgraph_asked_in_langchains_message_pairs(
    traced: InMemorySpanExporter, tmp_path: Path
) -> None:
    # graph.invoke({"messages": [("user", question)]}): the root's input holds the pair.
    model = FakeListChatModel(responses=[WRONG])

    def generate(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [model.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("generate", generate)
    graph.add_edge(START, "generate")
    graph.add_edge("generate", END)
    asked: Any = {"messages": [("user", QUESTION)]}  # coerced by LangGraph, not typed so
    graph.compile().invoke(asked)
    spans = traced.get_finished_spans()
    kept = [s for s in spans if (s.attributes or {}).get("openinference.span.kind") != "LLM"]
    (sample,) = samples_from_traces(written(kept, tmp_path / "t.jsonl")).samples
    assert (sample.question, sample.answer, sample.contexts) == (QUESTION, WRONG, ())


@pytest.mark.parametrize(
    "history",
    [
        [("What is insulin?", "A hormone.")],  # LangChain's (human, ai) exchanges
        [HumanMessage(content="What is insulin?"), AIMessage(content="A hormone.")],
    ],
    ids=["exchanges", "messages"],
)
def test_a_conversational_chains_history_is_the_samples(
    history: list[Any], traced: InMemorySpanExporter, tmp_path: Path
) -> None:
    # Its answering LLM call sees only the rephrased question: the conversation is in the
    # chain's input, and a follow-up question is unreadable without it.
    follow_up = "Which organ makes it?"
    chain = ConversationalRetrievalChain.from_llm(
        FakeListLLM(responses=[QUESTION, WRONG]), retriever=ToyRetriever()
    )
    chain.invoke({"question": follow_up, "chat_history": history})
    found = samples_from_traces(written(traced.get_finished_spans(), tmp_path / "t.jsonl"))
    (sample,) = found.samples
    assert (sample.question, sample.answer) == (follow_up, WRONG)
    assert [(t.role, t.content) for t in sample.history] == [
        ("user", "What is insulin?"),
        ("assistant", "A hormone."),
    ]


def test_a_langgraphs_earlier_messages_are_the_history(
    traced: InMemorySpanExporter, tmp_path: Path
) -> None:
    model = FakeListChatModel(responses=[WRONG])

    def generate(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [model.invoke(state["messages"][-1:])]}  # the last turn only

    graph = StateGraph(MessagesState)
    graph.add_node("generate", generate)
    graph.add_edge(START, "generate")
    graph.add_edge("generate", END)
    asked: Any = {"messages": [("user", "What is insulin?"), ("assistant", "A hormone."),
                               ("user", QUESTION)]}  # fmt: skip
    graph.compile().invoke(asked)
    found = samples_from_traces(written(traced.get_finished_spans(), tmp_path / "t.jsonl"))
    (sample,) = found.samples
    assert (sample.question, sample.answer) == (QUESTION, WRONG)
    assert [(t.role, t.content) for t in sample.history] == [
        ("user", "What is insulin?"),
        ("assistant", "A hormone."),
    ]
