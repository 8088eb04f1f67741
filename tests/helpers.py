"""Test helpers: replies a judge might write, and samples."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar

from veracity.types import Sample

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionMessageParam

    from veracity.prompts import ChatMessage

T = TypeVar("T")


def constant(value: T) -> Callable[[], T]:
    """A function returning ``value``, bound now (a lambda in a loop would see the last)."""
    return lambda: value


def claims_reply(*claims: str) -> str:
    return json.dumps({"claims": list(claims)})


def verdicts_reply(*items: tuple[str, str] | tuple[str, str, str, str]) -> str:
    """``(claim, verdict)`` or ``(claim, verdict, reason, evidence)`` tuples as JSON."""
    verdicts = []
    for item in items:
        claim, verdict, *rest = item
        reason, evidence = rest if rest else ("because", "")
        verdicts.append(
            {"claim": claim, "reason": reason, "evidence": evidence, "verdict": verdict}
        )
    return json.dumps({"verdicts": verdicts})


def paris_rows(n: int) -> list[dict[str, object]]:
    """``n`` dataset rows about one context, each answer a little different (distinct
    prompts: no reply is shared through the cache)."""
    return [
        {
            "id": f"s{i}",
            "question": "Where is Paris?",
            "contexts": ["Paris is the capital and largest city of France."],
            "answer": f"Paris is the capital of France. It has {i} museums.",
        }
        for i in range(n)
    ]


def make_sample(
    answer: str = "Paris is the capital of France. It has 2 million people.",
    contexts: Sequence[str] = ("Paris is the capital and largest city of France.",),
    **fields: object,
) -> Sample:
    return Sample.model_validate(
        {
            "id": "s1",
            "question": "Tell me about Paris.",
            "answer": answer,
            "contexts": list(contexts),
        }
        | fields
    )


def openai_messages(messages: Iterable[ChatMessage]) -> list[ChatCompletionMessageParam]:
    """A rendered prompt's messages as the OpenAI SDK takes them."""
    params: list[ChatCompletionMessageParam] = []
    for message in messages:
        if message.role == "system":
            params.append({"role": "system", "content": message.content})
        elif message.role == "assistant":
            params.append({"role": "assistant", "content": message.content})
        else:
            params.append({"role": "user", "content": message.content})
    return params
