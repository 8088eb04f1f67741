"""The config file's ``traces`` section: where custom instrumentation keeps a RAG
request's parts, tried before the OpenInference, OpenLLMetry and OTel GenAI conventions.

    traces:
      question: [app.question]            # span attributes holding the question
      answer: [app.answer]
      documents: ["app.docs.*.text"]      # * is the document's rank
      document_lists: [app.contexts]      # one attribute holding them all (a list)
      retriever_kinds: [search]           # span kinds (kind_keys' values) of a retrieval
      llm_kinds: [generate]
      kind_keys: [app.span_kind]
      system: [deployment.variant]        # the sample's system, else project, else service
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator

if TYPE_CHECKING:
    from veracity.traces import TraceMapping

__all__ = ["TraceMappingSpec"]

Key = Annotated[str, Field(min_length=1, max_length=256)]


class TraceMappingSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    question: tuple[Key, ...] = ()
    answer: tuple[Key, ...] = ()
    documents: tuple[Key, ...] = ()
    document_lists: tuple[Key, ...] = ()
    retriever_kinds: tuple[Key, ...] = ()
    llm_kinds: tuple[Key, ...] = ()
    kind_keys: tuple[Key, ...] = ()
    system: tuple[Key, ...] = ()

    @field_validator("documents")
    @classmethod
    def _ranked(cls, patterns: tuple[str, ...]) -> tuple[str, ...]:
        for pattern in patterns:
            if pattern.count("*") != 1:
                raise ValueError(
                    f"{pattern!r} needs one * where the document's rank is "
                    "(retrieval.documents.*.document.content); a key holding a list of "
                    "documents goes under document_lists"
                )
        return patterns

    def mapping(self) -> TraceMapping:
        """The default mapping with these keys tried first."""
        from veracity.traces import TraceMapping

        default = TraceMapping()
        ranked = tuple(
            re.compile("^" + r"(\d+)".join(map(re.escape, p.split("*"))) + "$")
            for p in self.documents
        )
        return TraceMapping(
            kind_keys=(*self.kind_keys, *default.kind_keys),
            retriever_kinds=default.retriever_kinds | {k.casefold() for k in self.retriever_kinds},
            llm_kinds=default.llm_kinds | {k.casefold() for k in self.llm_kinds},
            documents=(*ranked, *default.documents),
            document_lists=(*self.document_lists, *default.document_lists),
            question=(*self.question, *default.question),
            answer=(*self.answer, *default.answer),
            input_messages=default.input_messages,
            output_messages=default.output_messages,
            json_input=default.json_input,
            json_output=default.json_output,
            text_keys=default.text_keys,
            system=(*self.system, *default.system),
        )
