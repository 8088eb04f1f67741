"""Test helpers: replies a judge might write, samples, and skips for want of optional
libraries that check without the seconds of importing them."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, TypeVar

import pytest

from veracity.embeddings.weights import MINILM_LIBS, missing_modules
from veracity.traces.phoenix_client import phoenix_client
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


def phoenix_client_or_skip() -> ModuleType:
    """``phoenix.client``, entered as veracity enters it (:mod:`veracity.traces.phoenix_client`),
    else the test or module is skipped. Not ``pytest.importorskip("phoenix.client")``: that
    runs the full arize-phoenix's ``__init__``, its server's ten seconds of imports, in every
    test process that collects the module."""
    try:
        return phoenix_client()
    except ImportError as exc:
        pytest.skip(f"Phoenix's client is not installed: {exc}", allow_module_level=True)


def offline_judge_or_skip() -> None:
    """Skip the test or module unless the offline judge's libraries (torch, tokenizers,
    safetensors) are installed: found, not imported (the judge imports them when it loads)."""
    missing = missing_modules(MINILM_LIBS)
    if missing:
        pytest.skip(f"the offline judge needs {', '.join(missing)}", allow_module_level=True)


def word_frequencies_unloaded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """wordfreq as if nothing had read its tables yet, and the files it reads from now on,
    listed; each read takes a fifth of a second longer, so that loads that can overlap do."""
    import threading
    import time

    from veracity.text import frequencies

    wordfreq = pytest.importorskip("wordfreq")
    reads: list[str] = []
    read_file = wordfreq.read_cBpack

    def slow_read(filename: str) -> list[list[str]]:
        reads.append(filename)
        time.sleep(0.2)
        result: list[list[str]] = read_file(filename)
        return result

    monkeypatch.setattr(wordfreq, "read_cBpack", slow_read)
    monkeypatch.setattr(frequencies, "_loaded", threading.Event())
    wordfreq.get_frequency_dict.cache_clear()
    wordfreq.get_frequency_list.cache_clear()
    wordfreq._wf_cache.clear()
    return reads
