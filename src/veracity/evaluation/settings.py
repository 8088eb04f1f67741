"""An evaluation's settings: the defaults of :class:`~veracity.config.RunConfig`, and the
judge they describe."""

from __future__ import annotations

from veracity.config import RunConfig
from veracity.judges import Judge

# The settings' defaults: declared in RunConfig only.
DEFAULTS = RunConfig()


def judge_of(judge: Judge | str | None, settings: RunConfig, *, budget_given: bool) -> Judge:
    """The judge object: ``judge`` itself, or the one ``settings`` describe (``judge``, a
    spec, replacing theirs). ``budget_given``: a prompt budget was given as a keyword,
    which a judge object (carrying its own) refuses."""
    if judge is None or isinstance(judge, str):
        chosen = settings if judge is None else settings.model_copy(update={"judge": judge})
        return chosen.make_judge()
    if budget_given:
        raise ValueError(
            "prompt_budget and truncate_contexts shape a judge made from a spec; give a judge "
            "object its own (LLMJudge(..., prompt_budget=PromptBudget(...)))"
        )
    return judge
