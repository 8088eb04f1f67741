"""A stand-in generator for the fake LLM server: test items copied from the chunks.

It understands nothing: each reference is a sentence (or two) of a chunk, verbatim, and
each question is built around its first words. Enough to run ``veracity testset
generate`` end to end with no key and no network, and to test code around it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from veracity.prompts.testset import TESTSET_GENERATION
from veracity.testing import ChatRequest, Responder, RuleBasedResponder

_CONTEXT = re.compile(r"<context(?:\s[^>]*)?>\n?(.*?)\n?</context>", re.DOTALL)
_KIND = re.compile(r"item\(s\) of type ([a-z_]+)")
_COUNT = re.compile(r"Write exactly (\d+) item")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_PARAGRAPH = re.compile(r"\n\s*\n")
_SKIPPED = ("#", "```", "~~~", "|")
_MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


def is_generation_request(request: ChatRequest) -> bool:
    """Whether ``request`` is veracity's test-set generation prompt."""
    return request.system.startswith(TESTSET_GENERATION.system[:80])


def chunk_facts(chunk: str) -> list[str]:
    """The sentences of a chunk worth asking about: no headings, no fragments."""
    facts: list[str] = []
    for paragraph in _PARAGRAPH.split(chunk):
        lines = [_MARKER.sub("", line).strip() for line in paragraph.splitlines()]
        text = " ".join(line for line in lines if line and not line.startswith(_SKIPPED))
        facts.extend(s for s in _SENTENCE_END.split(text) if len(s.split()) >= 4)
    return facts


def _topic(sentence: str) -> str:
    words = sentence.rstrip(".!?").split()[:8]
    if words and not words[0].isupper():
        words[0] = words[0].lower()
    return " ".join(words).rstrip(",;:")


def fake_items(task: str) -> list[dict[str, Any]]:
    """Items of the asked type and number, made from the chunks of a generation task."""
    kind_match, count_match = _KIND.search(task), _COUNT.search(task)
    kind = kind_match.group(1) if kind_match else "fact_retrieval"
    count = int(count_match.group(1)) if count_match else 1
    chunks = [chunk_facts(m.group(1)) for m in _CONTEXT.finditer(task)]
    usable = [i for i, facts in enumerate(chunks) if facts]
    items: list[dict[str, Any]] = []
    for n in range(count if usable else 0):
        first = usable[n % len(usable)]
        facts = chunks[first]
        fact = facts[(n // len(usable)) % len(facts)]
        topic = _topic(fact)
        if kind == "complex_reasoning" and len(usable) > 1:
            second = usable[(n + 1) % len(usable)]
            other = chunks[second][(n // len(usable)) % len(chunks[second])]
            question = f"How does {topic} relate to {_topic(other)}?"
            items.append(_item(question, f"{fact} {other}", [first + 1, second + 1]))
        elif kind == "contextual_summary":
            question = f"Summarise what the documentation says about {topic}."
            items.append(_item(question, " ".join(facts[:2]), [first + 1]))
        elif kind == "creative_generation":
            question = f"Write a short note for a customer about {topic}."
            items.append(_item(question, fact, [first + 1]))
        else:
            question = f"What does the documentation say about {topic}?"
            items.append(_item(question, fact, [first + 1]))
    return items


def _item(question: str, reference: str, chunks: list[int]) -> dict[str, Any]:
    return {"question": question, "reference": reference, "chunks": chunks}


@dataclass(frozen=True)
class FakeTestsetResponder:
    """A :class:`~veracity.testing.FakeLLMServer` responder for the generation prompt
    (:func:`fake_items`); every other prompt goes to ``fallback`` (by default the
    rule-based judge, which checks the items by word overlap)."""

    fallback: Responder = field(default_factory=RuleBasedResponder)

    def __call__(self, request: ChatRequest) -> str:
        if is_generation_request(request):
            return json.dumps({"items": fake_items(request.first_user)}, ensure_ascii=False)
        return self.fallback(request)
