"""A RAG request's trace as a sample. Which spans and attributes hold the question, the
retrieved contexts, the answer and the conversation is data (:class:`TraceMapping`): the
OpenInference conventions (Arize Phoenix), OpenLLMetry's and the OTel GenAI ones by
default, other instrumentation by a mapping of its own.

A trace with an answer becomes a sample: its id is the trace id, the spans it came from
are in ``metadata`` (so results can go back to them), its system is the service's name.
One with no answer is skipped, with the reason (counted by the caller, never an error);
one with an answer but no retrieval is a sample without contexts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from veracity.traces.otlp import Span
from veracity.types import Sample, Turn

__all__ = ["NOT_RAG", "TraceMapping", "sample_of"]

NOT_RAG = "no answer: not a RAG request"


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
    # Keys of a JSON input or output that hold the text itself.
    text_keys: tuple[str, ...] = field(
        default=(
            "query",
            "question",
            "input",
            "output",
            "answer",
            "response",
            "text",
            "content",
            "page_content",
        )
    )
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
            found[int(m.group(1))] = value
    return found


def _text(value: Any, mapping: TraceMapping) -> str | None:
    """Text from an attribute: a string, or the text a JSON object holds under a known key."""
    if isinstance(value, str):
        stripped = value.strip()
        if stripped[:1] in ("{", "["):
            try:
                value = json.loads(stripped)
            except ValueError:
                return stripped
        else:
            return stripped
    if isinstance(value, Mapping):
        for key in mapping.text_keys:
            if isinstance(value.get(key), str):
                return str(value[key])
    if isinstance(value, list) and value:  # a list of messages: the last one's text
        return _part_text(value[-1])
    return None


def _part_text(message: Any) -> str | None:
    if isinstance(message, str):
        return message
    if not isinstance(message, Mapping):
        return None
    if isinstance(message.get("content"), str):
        return str(message["content"])
    parts = message.get("parts")
    if isinstance(parts, list):
        texts = [p.get("content") or p.get("text") for p in parts if isinstance(p, Mapping)]
        return "\n".join(t for t in texts if isinstance(t, str)) or None
    return None


def _first(span: Span | None, keys: Sequence[str], mapping: TraceMapping) -> str | None:
    if span is None:
        return None
    for key in keys:
        if key in span.attributes and (text := _text(span.attributes[key], mapping)):
            return text
    return None


def _messages(span: Span, mapping: TraceMapping) -> list[tuple[str, str]]:
    """An LLM span's input messages, (role, text), in order."""
    for role_key, content_key in mapping.input_messages:
        roles = _by_index(span.attributes, role_key)
        contents = _by_index(span.attributes, content_key)
        if contents:
            return [
                (str(roles.get(i, "")), str(contents[i]))
                for i in sorted(contents)
                if isinstance(contents[i], str)
            ]
    for key in mapping.json_input:
        raw = span.attributes.get(key)
        loaded = _text_json(raw)
        if isinstance(loaded, list):
            return [
                (str(m.get("role", "")), text)
                for m in loaded
                if isinstance(m, Mapping) and (text := _part_text(m)) is not None
            ]
    return []


def _text_json(raw: Any) -> Any:
    """A JSON array written as text, read; anything else (damaged JSON too) as it is."""
    if isinstance(raw, str) and raw.strip()[:1] == "[":
        try:
            return json.loads(raw)
        except ValueError:
            return None
    return raw


def _output(span: Span, mapping: TraceMapping) -> str | None:
    for pattern in mapping.output_messages:
        found = _by_index(span.attributes, pattern)
        if found and isinstance(found[max(found)], str):
            return str(found[max(found)])
    return _first(span, (*mapping.json_output, *mapping.answer), mapping)


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
            text = item if isinstance(item, str) else _text(item, mapping)
            if text:
                found.append(text)
    return found


def _template_variables(span: Span | None, mapping: TraceMapping) -> Mapping[str, Any]:
    if span is None:
        return {}
    for key in mapping.template_variables:
        raw = span.attributes.get(key)
        if isinstance(raw, str) and raw.strip()[:1] == "{":
            try:
                raw = json.loads(raw)
            except ValueError:
                continue
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
    for key in mapping.system:
        for span in spans:
            value = span.attributes.get(key)
            if isinstance(value, str | int) and str(value).strip():
                return str(value).strip()
    return spans[0].service


def sample_of(spans: Sequence[Span], mapping: TraceMapping | None = None) -> Sample | str:
    """The sample of one trace's spans, or why there is none."""
    mapping = mapping or TraceMapping()
    ids = {s.span_id for s in spans}
    ordered = sorted(spans, key=lambda s: (s.start, s.end))
    root = next((s for s in ordered if s.parent_id not in ids), ordered[0])
    retrievers = [s for s in ordered if _kind(s, mapping) in mapping.retriever_kinds]
    llms = sorted((s for s in spans if _kind(s, mapping) in mapping.llm_kinds), key=lambda s: s.end)
    final = llms[-1] if llms else None
    messages = _messages(final, mapping) if final is not None else []
    last_user = max(
        (i for i, (role, _) in enumerate(messages) if role in ("user", "human")), default=None
    )
    answer = (_first(root, mapping.answer, mapping) if root is not final else None) or (
        _output(final, mapping) if final is not None else None
    )
    if not answer:
        return NOT_RAG if not retrievers else "no answer in the trace"
    variables = _template_variables(final, mapping)
    question = (
        (_first(root, mapping.question, mapping) if root is not final else None)
        or (_first(retrievers[0], mapping.question, mapping) if retrievers else None)
        or next(iter(_variable(variables, mapping.question_variables)), None)
        or (messages[last_user][1] if last_user is not None else None)
    )
    if not question:
        return "no question in the trace"
    contexts = [doc for retriever in retrievers for doc in _documents(retriever, mapping)]
    # The context the prompt was given, but not the retrieved documents again.
    retrieved = "\n".join(contexts)
    contexts += [
        text
        for text in _variable(variables, mapping.context_variables)
        if text not in retrieved and not (contexts and all(doc in text for doc in contexts))
    ]
    earlier = messages[:last_user] if last_user is not None else []
    history = tuple(
        Turn(role="user" if role in ("user", "human") else "assistant", content=text)
        for role, text in earlier
        if role in ("user", "human", "assistant", "ai")
    )
    answered_by = root if root is not final and _first(root, mapping.answer, mapping) else final
    return Sample(
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
