"""Fakes for the test-set tests: a small document folder and a judge that knows the prompts."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from veracity.prompts import ChatMessage, OutputSpec
from veracity.testing import ChatRequest, RuleBasedResponder

MADE_UP = "The lamp was designed on the Moon by a team of penguins."

DOCS = {
    "lamp.md": (
        "# Orbit Lamp\n\n"
        "## Battery\n\n"
        "The Orbit lamp battery lasts 40 hours on the lowest brightness. "
        "It charges fully in 3 hours over USB-C.\n\n"
        "## Colours\n\n"
        "The Orbit lamp offers 16 colour presets. The warm white preset is 2700 kelvin.\n"
    ),
    "care.txt": (
        "Clean the lamp shade with a dry cloth once a month.\n\n"
        "Never submerge the lamp in water because it only resists splashes.\n"
    ),
    "notes.pdf": "not a document veracity reads",
}

_CONTEXT = re.compile(r"<context index=\"(\d+)\">\n(.*?)\n</context>", re.DOTALL)
_KIND = re.compile(r"of type ([a-z_]+)")
_COUNT = re.compile(r"Write exactly (\d+) item")


def write_docs(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def chunks_in(task: str) -> list[str]:
    """The chunk texts of a generation prompt, in their numbered order."""
    return [m.group(2) for m in _CONTEXT.finditer(task)]


def first_sentence(chunk: str) -> str:
    body = " ".join(line for line in chunk.splitlines() if line and not line.startswith("#"))
    return re.split(r"(?<=[.!?])\s+", body.strip())[0]


def request_of(messages: Sequence[ChatMessage]) -> ChatRequest:
    """A scripted chat model's messages as the fake server's request, for its responders."""
    pairs = tuple((m.role, m.content) for m in messages)
    return ChatRequest(model="scripted", messages=pairs, response_format=None, api="openai",
                       raw={})  # fmt: skip


@dataclass
class GeneratingJudge:
    """Answers the generation prompt with items made of the chunks' first sentences (the
    first item of the types in ``made_up`` gets a made-up fact appended, once each), and
    every other prompt with the rule-based judge (claim extraction and verification)."""

    made_up: set[str] = field(default_factory=set)
    generation_calls: list[str] = field(default_factory=list)
    rule_based: RuleBasedResponder = field(default_factory=RuleBasedResponder)

    def items(self, task: str) -> list[dict[str, object]]:
        kind = _KIND.search(task)
        count = _COUNT.search(task)
        assert kind is not None and count is not None, task
        chunks = chunks_in(task)
        items: list[dict[str, object]] = []
        for n in range(int(count.group(1))):
            first = n % len(chunks)
            reference = first_sentence(chunks[first])
            cited = [first + 1]
            if kind.group(1) == "complex_reasoning":
                second = (first + 1) % len(chunks)
                reference += " " + first_sentence(chunks[second])
                cited.append(second + 1)
            if kind.group(1) in self.made_up:
                self.made_up.discard(kind.group(1))
                reference += " " + MADE_UP
            question = f"{kind.group(1)}: what about {reference.rstrip('.')}?"
            items.append({"question": question, "reference": reference, "chunks": cited})
        return items

    def __call__(self, request: ChatRequest) -> str:
        if request.system.startswith("You write test questions"):
            self.generation_calls.append(request.first_user)
            return json.dumps({"items": self.items(request.first_user)})
        return self.rule_based(request)

    def scripted(self, messages: Sequence[ChatMessage], output: OutputSpec) -> str:
        """The same, as a :class:`~veracity.chat.ScriptedChat` responder."""
        del output
        return self(request_of(messages))
