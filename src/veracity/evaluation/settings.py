"""An evaluation's settings: a :class:`~veracity.config.RunConfig`, with the keywords of
:func:`~veracity.evaluation.aevaluate` laid over it, and the judge they describe."""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from typing import Any

from veracity.config import RunConfig
from veracity.embeddings import Embedder
from veracity.judges import Judge

# The settings' defaults: declared in RunConfig only.
DEFAULTS = RunConfig()


class UseConfig(Enum):
    """The default of ``aevaluate``'s setting keywords: the config's value (httpx's
    ``USE_CLIENT_DEFAULT``, for a run)."""

    USE_CONFIG = "the config's value"

    def __repr__(self) -> str:
        return "USE_CONFIG"


USE_CONFIG = UseConfig.USE_CONFIG


def run_config(config: RunConfig | None, keywords: Mapping[str, Any]) -> RunConfig:
    """``config`` (default: the defaults) with each keyword given laid over it. Raises
    :class:`ValueError` naming a keyword whose value is out of bounds."""
    base = DEFAULTS if config is None else config
    return base.overridden({k: v for k, v in keywords.items() if v is not USE_CONFIG})


def cache_setting(cache: bool | str | Path | UseConfig) -> bool | str | UseConfig:
    """The ``cache`` keyword as a setting: a path as its text."""
    return str(cache) if isinstance(cache, Path) else cache


def spec_keywords(embedder: object, calibration: object) -> dict[str, str]:
    """The ``embedder`` and ``calibration`` keywords as settings, where they are specs
    (names or paths) rather than objects or left out; ``embedder=None`` is ``"none"``."""
    found: dict[str, str] = {}
    if embedder is None or isinstance(embedder, str):
        found["embedder"] = embedder or "none"
    if isinstance(calibration, str | Path):
        found["calibration"] = str(calibration)
    return found


def embedder_of(embedder: object, settings: RunConfig) -> Embedder | str | None:
    """The embedder to make: an object given, else the settings' spec."""
    return embedder if isinstance(embedder, Embedder) else settings.embedder_spec


def judge_of(judge: Judge | str | None, settings: RunConfig, *, budget_given: bool) -> Judge:
    """The judge object: ``judge`` itself, or the one ``settings`` describe (``judge``, a
    spec, replacing theirs)."""
    if judge is None or isinstance(judge, str):
        chosen = settings if judge is None else settings.model_copy(update={"judge": judge})
        return chosen.make_judge()
    if budget_given:
        raise ValueError(
            "prompt_budget and truncate_contexts shape a judge made from a spec; give a judge "
            "object its own (LLMJudge(..., prompt_budget=PromptBudget(...)))"
        )
    return judge
