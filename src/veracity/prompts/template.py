"""Prompts as data: typed templates with an output schema and a fingerprint.

Untrusted text (answers, contexts, claims) is only ever placed inside tagged blocks, and a
closing tag inside the text is neutralised, so a document cannot end its own block and
speak to the judge as if it were the instructions.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: Role
    content: str


@dataclass(frozen=True, slots=True)
class OutputSpec:
    """What a judge's reply must look like: a named JSON schema."""

    name: str
    json_schema: Mapping[str, Any]


# Every tag veracity's prompts use to delimit data; untrusted text may contain none of them.
DATA_TAGS = ("question", "answer", "reference", "contexts", "context", "claims", "claim")
_DATA_TAG = re.compile(rf"<(\s*/?\s*)({'|'.join(DATA_TAGS)})\b", re.IGNORECASE)


def untrusted(tag: str, text: str, **attributes: str | int) -> str:
    """Wrap untrusted text in ``<tag>`` … ``</tag>``, neutralising any data tag it contains."""
    attrs = "".join(f' {key}="{value}"' for key, value in attributes.items())
    safe = _DATA_TAG.sub(r"<\1_\2", text)
    return f"<{tag}{attrs}>\n{safe}\n</{tag}>"


def numbered_block(tag: str, item_tag: str, items: Sequence[str]) -> str:
    """Several untrusted items, each in its own numbered ``<item_tag>`` inside ``<tag>``."""
    if not items:
        return f"<{tag}>\n(none)\n</{tag}>"
    inner = "\n".join(untrusted(item_tag, item, index=i) for i, item in enumerate(items, 1))
    return f"<{tag}>\n{inner}\n</{tag}>"


@dataclass(frozen=True, slots=True)
class RenderedPrompt:
    template_id: str
    fingerprint: str
    messages: tuple[ChatMessage, ...]
    output: OutputSpec


@dataclass(frozen=True)
class PromptTemplate:
    """A versioned prompt: system text, a user template and the schema of the reply.

    ``user`` is a ``str.format`` template whose fields are filled with already-delimited
    blocks (see :func:`untrusted`); the fingerprint changes whenever any part changes.
    """

    id: str
    version: int
    system: str
    user: str
    output_model: type[BaseModel]
    examples: tuple[str, ...] = field(default=())

    @cached_property
    def output(self) -> OutputSpec:
        return OutputSpec(name=self.id, json_schema=self.output_model.model_json_schema())

    @cached_property
    def fingerprint(self) -> str:
        payload = json.dumps(
            {
                "id": self.id,
                "version": self.version,
                "system": self.system,
                "user": self.user,
                "examples": self.examples,
                "schema": self.output.json_schema,
            },
            sort_keys=True,
        )
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    def render(self, **blocks: str) -> RenderedPrompt:
        schema = json.dumps(self.output.json_schema, sort_keys=True)
        system = (
            f"{self.system}\n\nReply with a single JSON object matching this JSON schema:\n{schema}"
        )
        if self.examples:
            system += "\n\n" + "\n\n".join(self.examples)
        return RenderedPrompt(
            template_id=self.id,
            fingerprint=self.fingerprint,
            messages=(
                ChatMessage("system", system),
                ChatMessage("user", self.user.format(**blocks)),
            ),
            output=self.output,
        )
