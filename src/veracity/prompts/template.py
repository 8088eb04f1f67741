"""Prompts as data: typed templates with worked examples, an output schema and a fingerprint.

Untrusted text (answers, contexts, claims) is only ever placed inside tagged blocks, and a
closing tag inside the text is neutralised, so a document cannot end its own block and
speak to the judge as if it were the instructions.

A judge is shown what to reply as filled-in examples, never as a bare JSON schema: small
models copy a schema back instead of following it. The schema still goes to endpoints that
can enforce it (``response_format`` json_schema, Anthropic's tool input).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel

from veracity.prompts._rules import DATA_TAGS

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: Role
    content: str


@dataclass(frozen=True, slots=True)
class OutputSpec:
    """What a judge's reply must look like: a named JSON schema, and how long it may be.
    ``logprobs``: whether anything reads the reply's token log-probabilities."""

    name: str
    json_schema: Mapping[str, Any]
    max_tokens: int = 1024
    logprobs: bool = True


# Every tag veracity's prompts use to delimit data; untrusted text may contain none of them.
_DATA_TAG = re.compile(rf"<(\s*/?\s*)({'|'.join(DATA_TAGS)})\b", re.IGNORECASE)


def untrusted(tag: str, text: str, **attributes: str | int) -> str:
    """Wrap untrusted text in ``<tag>`` … ``</tag>``, neutralising any data tag it contains."""
    attrs = "".join(f' {key}="{value}"' for key, value in attributes.items())
    safe = _DATA_TAG.sub(r"<\1_\2", text)
    return f"<{tag}{attrs}>\n{safe}\n</{tag}>"


def copyable(text: str) -> str:
    """``text`` with its double quotes shown as single quotes, for text the judge copies
    into a JSON string (claims out of an answer, evidence out of the contexts): small models
    do not escape a double quote, which ends the string early and breaks the reply."""
    return text.replace('"', "'")


def numbered_block(tag: str, item_tag: str, items: Sequence[str]) -> str:
    """Several untrusted items, each in its own numbered ``<item_tag>`` inside ``<tag>``."""
    if not items:
        return f"<{tag}>\n(none)\n</{tag}>"
    inner = "\n".join(untrusted(item_tag, item, index=i) for i, item in enumerate(items, 1))
    return f"<{tag}>\n{inner}\n</{tag}>"


@dataclass(frozen=True, slots=True)
class Example:
    """A worked example: the task's blocks, rendered as real ones are, and the reply.

    ``reply`` is an instance of the template's output model, so an example cannot drift
    from the schema the reply is read against.
    """

    blocks: Mapping[str, str]
    reply: BaseModel


@dataclass(frozen=True, slots=True)
class RenderedPrompt:
    template_id: str
    fingerprint: str
    messages: tuple[ChatMessage, ...]
    output: OutputSpec


@dataclass(frozen=True)
class PromptTemplate:
    """A versioned prompt: system text, a user template, worked examples, the reply's schema.

    ``user`` is a ``str.format`` template whose fields are filled with already-delimited
    blocks (see :func:`untrusted`). A reply may take ``max_tokens``, plus
    ``max_tokens_per_item`` for each item a batched question asks about. The fingerprint
    changes whenever any part changes.
    """

    id: str
    version: int
    system: str
    user: str
    output_model: type[BaseModel]
    examples: tuple[Example, ...] = field(default=())
    max_tokens: int = 512
    max_tokens_per_item: int = 0
    # Whether the reply's token log-probabilities are read (verdicts, ratings): replies
    # that only list things (claims, questions) need not carry them.
    logprobs: bool = True

    def __post_init__(self) -> None:
        for example in self.examples:
            if not isinstance(example.reply, self.output_model):
                raise TypeError(f"{self.id}: an example's reply is not a {self.output_model}")

    @cached_property
    def output(self) -> OutputSpec:
        return OutputSpec(
            name=self.id,
            json_schema=self.output_model.model_json_schema(),
            max_tokens=self.max_tokens,
            logprobs=self.logprobs,
        )

    @cached_property
    def system_text(self) -> str:
        """The instructions, then every worked example with its reply."""
        parts = [self.system]
        for n, example in enumerate(self.examples, 1):
            task = self.user.format_map(example.blocks)
            reply = example.reply.model_dump_json()
            title = "Example" if len(self.examples) == 1 else f"Example {n}"
            parts.append(f"{title}:\n{task}\nReply:\n{reply}")
        return "\n\n".join(parts)

    @cached_property
    def fixed_chars(self) -> int:
        """The characters every prompt of this template sends, whatever the data."""
        return len(self.system_text) + len(self.user)

    @cached_property
    def fingerprint(self) -> str:
        payload = json.dumps(
            {
                "id": self.id,
                "version": self.version,
                "system": self.system_text,
                "user": self.user,
                "schema": self.output.json_schema,
                "max_tokens": [self.max_tokens, self.max_tokens_per_item],
            },
            sort_keys=True,
        )
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    def budget(self, items: int = 0, max_tokens: int | None = None) -> int:
        """Tokens a reply about ``items`` items may take (``max_tokens`` replaces the base)."""
        base = self.max_tokens if max_tokens is None else max_tokens
        return base + self.max_tokens_per_item * max(0, items)

    def render(
        self, blocks: Mapping[str, str], *, items: int = 0, max_tokens: int | None = None
    ) -> RenderedPrompt:
        output = self.output
        budget = self.budget(items, max_tokens)
        if budget != output.max_tokens:
            output = dataclasses.replace(output, max_tokens=budget)
        return RenderedPrompt(
            template_id=self.id,
            fingerprint=self.fingerprint,
            messages=(
                ChatMessage("system", self.system_text),
                ChatMessage("user", self.user.format_map(blocks)),
            ),
            output=output,
        )
