"""A RAG request's trace as a sample. Which spans and attributes hold the question, the
retrieved contexts, the answer and the conversation is data (:class:`TraceMapping`): the
OpenInference conventions (Arize Phoenix), OpenLLMetry's and the OTel GenAI ones by
default, other instrumentation by a mapping of its own.

A trace with an answer becomes a sample: its id is the trace id, the spans it came from
are in ``metadata`` (so results can go back to them). One with no answer is skipped, with
the reason (counted by the caller, never an error); one with an answer but no retrieval
is a sample without contexts.

The answer is read from the keys the frameworks write it under (``answer``, ``result``,
``output``, ``output_text``, ``response``…, the last AI message of ``messages``), never
from the question a chain's output repeats beside it. A root output that holds none of
them, or holds the question itself, gives way to the last LLM call's output, and is said
(:func:`read_trace`'s doubt); with no LLM call to fall back on, the trace is skipped.

The sample's system, one rule whatever the source: the first ``system`` attribute the
mapping names, else the project the trace is filed under (OpenInference's
``openinference.project.name`` resource attribute; Phoenix's project), else the service
the trace carries (``service.name``; OpenTelemetry's ``unknown_service`` is none).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from veracity.traces.otlp import Span
from veracity.traces.texts import (
    AI_ROLES,
    HUMAN_ROLES,
    earlier_turns,
    loaded_json,
    message_role,
    message_text,
    same_text,
    text_in,
)
from veracity.types import Sample, Turn

__all__ = [
    "ECHOED_QUESTION",
    "NOT_RAG",
    "ROOT_UNREAD",
    "TraceMapping",
    "read_trace",
]

NOT_RAG = "no answer: not a RAG request"
MAX_INDEX_DIGITS = 18  # a document's or message's index beyond this is no index
ROOT_UNREAD = "root output holds no answer key"
ECHOED_QUESTION = "the answer read is the question"


def _indexed(prefix: str, suffix: str) -> re.Pattern[str]:
    return re.compile(rf"^{re.escape(prefix)}\.(\d+)\.{re.escape(suffix)}$")


@dataclass(frozen=True)
class TraceMapping:
    """Where each part of a sample is in a trace's spans."""

    kind_keys: tuple[str, ...] = (
        "openinference.span.kind", "traceloop.span.kind", "gen_ai.operation.name",
    )  # fmt: skip
    retriever_kinds: frozenset[str] = frozenset({"retriever", "retrieval"})
    llm_kinds: frozenset[str] = frozenset({"llm", "chat", "text_completion"})
    # A retriever span's documents, in rank order (the number in the key), or attributes
    # holding them all as a list (or a JSON array): texts, or objects with a text key.
    documents: tuple[re.Pattern[str], ...] = (_indexed("retrieval.documents", "document.content"),)
    document_lists: tuple[str, ...] = ()
    # The request's question and answer on its root span (plain, or JSON holding them).
    question: tuple[str, ...] = ("input.value", "traceloop.entity.input")
    answer: tuple[str, ...] = ("output.value", "traceloop.entity.output")
    # An LLM span's messages: (role, content) keys by index, or one JSON attribute.
    input_messages: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = (
        (_indexed("llm.input_messages", "message.role"),
         _indexed("llm.input_messages", "message.content")),
        (_indexed("gen_ai.prompt", "role"), _indexed("gen_ai.prompt", "content")),
    )  # fmt: skip
    output_messages: tuple[re.Pattern[str], ...] = (
        _indexed("llm.output_messages", "message.content"),
        _indexed("gen_ai.completion", "content"),
    )
    json_input: tuple[str, ...] = ("gen_ai.input.messages",)
    json_output: tuple[str, ...] = ("gen_ai.output.messages",)
    # Keys of a JSON object that hold its text: a document's (in a list of documents), a
    # request's question (its input), a request's answer (its output; never the question
    # keys, which chains echo beside the answer).
    text_keys: tuple[str, ...] = ("page_content", "content", "text", "document")
    question_keys: tuple[str, ...] = (
        "question", "query", "input", "user_input", "query_str", "prompt",
    )  # fmt: skip
    answer_keys: tuple[str, ...] = (
        "answer", "result", "output", "output_text", "response", "final_answer",
        "generation", "text", "content",
    )  # fmt: skip
    # An LLM span's prompt template variables (a JSON object): the context it was given,
    # and the question, under these names.
    template_variables: tuple[str, ...] = ("llm.prompt_template.variables",)
    context_variables: tuple[str, ...] = ("context", "contexts", "documents", "sources")
    question_variables: tuple[str, ...] = ("question", "query", "input", "user_input")
    # The sample's system: the first of these attributes a span has (the root's first),
    # else the service's name.
    system: tuple[str, ...] = ()


def _kind(span: Span, mapping: TraceMapping) -> str:
    for key in mapping.kind_keys:
        value = span.attributes.get(key)
        if isinstance(value, str):
            return value.casefold()
    return ""


def _by_index(attributes: Mapping[str, Any], pattern: re.Pattern[str]) -> dict[int, Any]:
    found = {}
    for key, value in attributes.items():
        m = pattern.match(key)
        if m is not None:
            if len(m.group(1)) > MAX_INDEX_DIGITS:
                raise ValueError(f"{key[:48]}…: an index of {len(m.group(1))} digits")
            found[int(m.group(1))] = value
    return found


def _text(
    span: Span | None, keys: Sequence[str], nested: Sequence[str], roles: frozenset[str]
) -> str | None:
    """The text the first of ``keys`` that ``span`` has holds: the question of its input
    (``mapping.question``), or the answer of its output (``mapping.answer``)."""
    if span is None:
        return None
    for key in keys:
        if key in span.attributes:
            text = text_in(span.attributes[key], nested, roles)
            if text:
                return text
    return None


def _question(span: Span | None, mapping: TraceMapping) -> str | None:
    return _text(span, mapping.question, mapping.question_keys, HUMAN_ROLES)


def _messages(span: Span, mapping: TraceMapping) -> list[tuple[str, str]]:
    """An LLM span's input messages, (role, text), in order."""
    for role_key, content_key in mapping.input_messages:
        roles = _by_index(span.attributes, role_key)
        contents = _by_index(span.attributes, content_key)
        if contents:
            return [
                (str(roles.get(i, "")).casefold(), str(contents[i]))
                for i in sorted(contents)
                if isinstance(contents[i], str)
            ]
    for key in mapping.json_input:
        raw = span.attributes.get(key)
        loaded = _text_json(raw)
        if isinstance(loaded, list):
            return [
                (message_role(m), text)
                for m in loaded
                if isinstance(m, Mapping) and (text := message_text(m)) is not None
            ]
    return []


def _text_json(raw: Any) -> Any:
    """A JSON array written as text, read; anything else (damaged JSON too) as it is."""
    if isinstance(raw, str) and raw.strip()[:1] == "[":
        return loaded_json(raw)
    return raw


def _output(span: Span, mapping: TraceMapping) -> str | None:
    for pattern in mapping.output_messages:
        found = _by_index(span.attributes, pattern)
        if found and isinstance(found[max(found)], str):
            return str(found[max(found)])
    for key in (*mapping.json_output, *mapping.answer):
        if key in span.attributes:
            text = text_in(span.attributes[key], mapping.answer_keys, AI_ROLES)
            if text:
                return text
    return None


def _documents(span: Span, mapping: TraceMapping) -> list[str]:
    """A retriever span's documents, in rank order."""
    found = [
        str(doc)
        for pattern in mapping.documents
        for _, doc in sorted(_by_index(span.attributes, pattern).items())
        if isinstance(doc, str)
    ]
    for key in mapping.document_lists:
        listed = _text_json(span.attributes.get(key))
        for item in listed if isinstance(listed, list) else []:
            text = item if isinstance(item, str) else text_in(item, mapping.text_keys, AI_ROLES)
            if text:
                found.append(text)
    return found


def _template_variables(span: Span | None, mapping: TraceMapping) -> Mapping[str, Any]:
    if span is None:
        return {}
    for key in mapping.template_variables:
        raw = span.attributes.get(key)
        if isinstance(raw, str) and raw.strip()[:1] == "{":
            raw = loaded_json(raw)
        if isinstance(raw, Mapping):
            return raw
    return {}


def _variable(variables: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """The texts of the first of ``names`` among the template's variables: a string, or a
    list of them."""
    for name in names:
        value = variables.get(name)
        texts = [v.strip() for v in (value if isinstance(value, list) else [value])
                 if isinstance(v, str) and v.strip()]  # fmt: skip
        if texts:
            return texts
    return []


def _system(spans: Sequence[Span], mapping: TraceMapping) -> str | None:
    """The configured attribute, else the trace's project, else its service."""
    for key in mapping.system:
        for span in spans:
            value = span.attributes.get(key)
            if isinstance(value, str | int) and str(value).strip():
                return str(value).strip()
    for span in spans:
        if span.project:
            return span.project
    return next((span.service for span in spans if span.service), None)


def _root_turns(root: Span, mapping: TraceMapping) -> list[tuple[str, str]]:
    """The conversation the request's input holds before its question (a chain's
    ``chat_history``, a LangGraph's earlier ``messages``)."""
    for key in mapping.question:
        raw = root.attributes.get(key)
        loaded = loaded_json(raw.strip()) if isinstance(raw, str) else raw
        if isinstance(loaded, Mapping):
            return earlier_turns(loaded)
    return []


def _chosen_answer(
    root: Span, final: Span | None, question: str | None, mapping: TraceMapping
) -> tuple[str | None, Span | None, str | None]:
    """The answer, the span it came from, and a doubt: the root's output where it holds an
    answer that is not the question, else the last LLM call's (said, where the root had an
    output that was not read). With no answer, the doubt is why."""
    if root is final:  # an LLM call alone: its output, unless it repeats its question
        answer = _output(root, mapping)
        if answer is not None and question is not None and same_text(answer, question):
            return None, None, ECHOED_QUESTION
        return answer, root, None
    doubt = None
    if (answer := _text(root, mapping.answer, mapping.answer_keys, AI_ROLES)) is not None:
        if question is None or not same_text(answer, question):
            return answer, root, None
        doubt = ECHOED_QUESTION
    elif any(key in root.attributes for key in mapping.answer):
        doubt = ROOT_UNREAD
    answer = _output(final, mapping) if final is not None else None
    if answer is not None and question is not None and same_text(answer, question):
        return None, None, ECHOED_QUESTION
    return answer, final, doubt


def read_trace(
    spans: Sequence[Span], mapping: TraceMapping | None = None
) -> tuple[Sample | str, str | None]:
    """The sample of one trace's spans, or why there is none; and what is doubtful about
    it (:data:`ROOT_UNREAD`, :data:`ECHOED_QUESTION`: the root's output was passed over
    for the last LLM call's), or None."""
    mapping = mapping or TraceMapping()
    ids = {s.span_id for s in spans}
    ordered = sorted(spans, key=lambda s: (s.start, s.end))
    root = next((s for s in ordered if s.parent_id not in ids), ordered[0])
    retrievers = [s for s in ordered if _kind(s, mapping) in mapping.retriever_kinds]
    llms = sorted((s for s in spans if _kind(s, mapping) in mapping.llm_kinds), key=lambda s: s.end)
    final = llms[-1] if llms else None
    messages = _messages(final, mapping) if final is not None else []
    last_user = max(
        (i for i, (role, _) in enumerate(messages) if role in HUMAN_ROLES), default=None
    )
    variables = _template_variables(final, mapping)
    question = (
        (_question(root, mapping) if root is not final else None)
        or (_question(retrievers[0], mapping) if retrievers else None)
        or next(iter(_variable(variables, mapping.question_variables)), None)
        or (messages[last_user][1] if last_user is not None else None)
    )
    answer, answered_by, doubt = _chosen_answer(root, final, question, mapping)
    if not answer:
        if doubt is not None:
            return doubt, None
        return (NOT_RAG if not retrievers else "no answer in the trace"), None
    if not question:
        return "no question in the trace", None
    contexts = [doc for retriever in retrievers for doc in _documents(retriever, mapping)]
    # The context the prompt was given, but not the retrieved documents again.
    retrieved = "\n".join(contexts)
    contexts += [
        text
        for text in _variable(variables, mapping.context_variables)
        if text not in retrieved and not (contexts and all(doc in text for doc in contexts))
    ]
    earlier = messages[:last_user] if last_user is not None else []
    if not earlier and root is not final:  # the LLM call was not given the conversation
        earlier = _root_turns(root, mapping)
    history = tuple(
        Turn(role="user" if role in HUMAN_ROLES else "assistant", content=text)
        for role, text in earlier
        if role in HUMAN_ROLES or role in AI_ROLES
    )
    sample = Sample(
        id=root.trace_id,
        question=question,
        contexts=tuple(dict.fromkeys(contexts)),
        answer=answer,
        history=history,
        system=_system([root, *ordered], mapping),
        metadata={
            "trace_id": root.trace_id,
            "span_id": (answered_by or root).span_id,
            "retriever_span_ids": [r.span_id for r in retrievers],
        },
    )
    return sample, doubt
