"""Asking a judge question only when its input fits the prompt budget."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from veracity.judges.base import JudgeOutcome
from veracity.prompts import PromptBudget, PromptTooLarge

T = TypeVar("T")


async def within_budget(
    budget: PromptBudget,
    texts: Sequence[str],
    contexts: Sequence[str],
    ask: Callable[[tuple[str, ...]], Awaitable[JudgeOutcome[T]]],
    *,
    fixed_chars: int = 0,
) -> JudgeOutcome[T]:
    """``ask(contexts)``, with the contexts cut to fit when the budget allows it (and that
    noted); an input over the budget is an ``invalid_input`` outcome, never asked."""
    try:
        fitted = budget.fit(texts, contexts, fixed_chars=fixed_chars)
    except PromptTooLarge as exc:
        return JudgeOutcome(value=None, error=str(exc), invalid_input=True)
    outcome = await ask(fitted.contexts)
    if fitted.note is None:
        return outcome
    return dataclasses.replace(outcome, notes=(fitted.note, *outcome.notes))
