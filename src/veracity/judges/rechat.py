"""A judge's chat model, read and replaced from outside the judge: how a run puts the
response cache and batching around it (:mod:`veracity.chat.stack` builds them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import overload

from veracity.chat.base import ChatModel
from veracity.judges.base import Judge
from veracity.judges.llm import LLMJudge


def chat_of(judge: Judge) -> ChatModel | None:
    """The chat model ``judge`` asks; ``None`` for a judge without one (the offline judge)."""
    return judge.model if isinstance(judge, LLMJudge) else None


@overload
def rechat(judge: LLMJudge, build: Callable[[ChatModel], ChatModel]) -> LLMJudge: ...
@overload
def rechat(judge: Judge, build: Callable[[ChatModel], ChatModel]) -> Judge: ...
def rechat(judge: Judge, build: Callable[[ChatModel], ChatModel]) -> Judge:
    """``judge`` asking ``build(its chat model)`` instead; a judge without one as it is."""
    return judge.using(build(judge.model)) if isinstance(judge, LLMJudge) else judge
