"""A judge's models, read and replaced from outside the judge: how a run puts the response
cache and batching around its chat model (:mod:`veracity.chat.stack` builds them), and
the cache around a decision judge's decision model."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, overload

from veracity.chat.base import ChatModel
from veracity.chat.cache import ReplyStore
from veracity.decisions.base import DecisionModel
from veracity.decisions.cache import CachedDecisions
from veracity.judges.base import Judge
from veracity.judges.decision.judge import DecisionJudge
from veracity.judges.llm import LLMJudge


def chat_of(judge: Judge) -> ChatModel | None:
    """The chat model ``judge`` asks for its verdicts; ``None`` for a judge without one (the
    offline judge, a decision judge: its verdicts are no chat model's, so it has no batch
    API even where a chat judge draws its claims)."""
    return judge.model if isinstance(judge, LLMJudge) else None


@overload
def rechat(judge: LLMJudge, build: Callable[[ChatModel], ChatModel]) -> LLMJudge: ...
@overload
def rechat(judge: Judge, build: Callable[[ChatModel], ChatModel]) -> Judge: ...
def rechat(judge: Judge, build: Callable[[ChatModel], ChatModel]) -> Judge:
    """``judge`` asking ``build(its chat model)`` instead (a decision judge: the chat judge
    drawing its claims, if any); a judge without one as it is."""
    if isinstance(judge, LLMJudge):
        return judge.using(build(judge.model))
    if isinstance(judge, DecisionJudge) and judge.claims_judge is not None:
        return judge.using(claims_judge=rechat(judge.claims_judge, build))
    return judge


def billing_models(judge: Judge) -> tuple[str, ...]:
    """The models whose tokens ``judge``'s results count, by name: the judge's, and the
    chat judge drawing a decision judge's claims (the hybrid: two prices in one usage)."""
    if isinstance(judge, DecisionJudge) and judge.claims_judge is not None:
        return (judge.name, *billing_models(judge.claims_judge))
    return (judge.name,)


def decisions_of(judge: Judge) -> DecisionModel | None:
    """The decision model ``judge`` asks; ``None`` for a judge without one."""
    return judge.model if isinstance(judge, DecisionJudge) else None


def redecide(judge: Judge, build: Callable[[DecisionModel], DecisionModel]) -> Judge:
    """``judge`` asking ``build(its decision model)`` instead; a judge without one as it is."""
    return judge.using(build(judge.model)) if isinstance(judge, DecisionJudge) else judge


def with_cached_decisions(
    judge: Judge, cache: ReplyStore | None, scope: Literal["shared", "run"] = "shared"
) -> Judge:
    """``judge`` with its decision model's answers kept in ``cache`` (where it has one, and
    there is a cache), as a chat judge's replies are."""
    if cache is None:
        return judge
    return redecide(judge, lambda model: CachedDecisions(model, cache, scope))
