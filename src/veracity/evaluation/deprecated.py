"""The setting keywords ``evaluate`` and ``aevaluate`` took before their settings went to
:class:`~veracity.config.RunConfig` alone: for one release each still works as it did,
with a :class:`DeprecationWarning` naming its field. This module goes in the next one."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from veracity.config import RunConfig
from veracity.evaluation.settings import DEFAULTS
from veracity.report import checked_error_rate
from veracity.runner import checked_executor

if TYPE_CHECKING:
    from veracity.agreement.calibration_file import CalibrationFile
    from veracity.chat.batching import BatchSettings
    from veracity.embeddings import BertScoring, Embedder
    from veracity.transport.pricing import Price
    from veracity.types import Rubric


class DeprecatedKeywords(TypedDict, total=False):
    """The keywords, each a :class:`~veracity.config.RunConfig` field of its name (but
    ``settings``: ``extra_settings``), typed as they were."""

    iterations: int
    base_url: str | None
    concurrency: int
    rpm: float | None
    embedder: Embedder | str | None
    bert_scorer: BertScoring | str | None
    rubrics: Mapping[str, Rubric] | None
    cache: bool | str | Path
    cache_max_size: str | int | None
    prices: Mapping[str, Price] | None
    keep_results: bool
    settings: Mapping[str, Any] | None
    prompt_budget: int
    truncate_contexts: bool
    max_error_rate: float
    executor: str
    ray_address: str | None
    batch: bool | BatchSettings
    calibration: str | Path | CalibrationFile | None
    force_calibration: bool


_FIELDS = {name: name for name in DeprecatedKeywords.__annotations__} | {
    "settings": "extra_settings"
}
# Keywords whose None meant "not given" (the config's value), not a value.
_NONE_UNSET = {"rubrics", "prices", "settings", "calibration"}


def moved_keywords(
    function: str, config: RunConfig | None, given: Mapping[str, Any]
) -> tuple[RunConfig, bool]:
    """``config`` (default: the defaults) with the deprecated keywords ``given`` laid over
    it as they were, each warned of where ``function`` was called; and whether a prompt
    budget was among them (a judge object, which carries its own, refuses one). An
    unknown keyword is the :class:`TypeError` Python raises for one."""
    for name in given:
        if name not in _FIELDS:
            raise TypeError(f"{function}() got an unexpected keyword argument {name!r}")
    for name in given:
        warnings.warn(
            f"{name}= is deprecated; use RunConfig({_FIELDS[name]}=...) as config= "
            "(the keyword goes in the next release)",
            DeprecationWarning,
            stacklevel=4,  # past _call and evaluate (or aevaluate): the line that called it
        )
    base = DEFAULTS if config is None else config
    settings = {
        _FIELDS[name]: _setting(name, value, base)
        for name, value in given.items()
        if not (value is None and name in _NONE_UNSET)
    }
    budget_given = "prompt_budget" in given or given.get("truncate_contexts") is True
    return base.overridden(settings), budget_given


def _setting(name: str, value: Any, base: RunConfig) -> object:
    """The keyword's value as its field takes it; tables laid over the config's."""
    if name == "max_error_rate":
        return checked_error_rate(value)
    if name == "executor":
        return checked_executor(value)
    if name == "embedder" and value is None:
        return "none"
    if name in ("rubrics", "prices"):
        return {**getattr(base, name), **value}
    if name == "settings":
        return {**base.extra_settings, **value}
    return value
