"""Every veracity exception survives pickling whole (as it must on its way back from a Ray
worker or a process pool): same type, message and attributes."""

from __future__ import annotations

import importlib
import inspect
import pickle
import pkgutil
from typing import Any

import pytest

import veracity
from veracity.chat.base import ChatReply
from veracity.config.file import ConfigError
from veracity.dataset.errors import NoValidSampleError, RowError
from veracity.decisions.base import DecisionReply, PartlyDecidedError
from veracity.judges.llm.asking import CutReply
from veracity.labels.values import GradeWithoutScale
from veracity.testing._decision_wire import DecisionRequestError
from veracity.testing._request import RequestError
from veracity.transport.errors import OptionRejectedError
from veracity.types import Usage

USAGE = Usage(calls=1, input_tokens=10)
MADE: dict[type[BaseException], BaseException] = {
    error.__class__: error
    for error in (
        ConfigError("veracity.toml", "judge.model", "must be a string"),
        NoValidSampleError("data.jsonl", [RowError("data.jsonl", 3, None, "no answer")]),
        PartlyDecidedError("1 of 2 parts failed", DecisionReply({}, USAGE, 0.5, "m")),
        CutReply("cut at 64 tokens", ChatReply('{"a": ', USAGE, 0.1, "m", True), 64),
        GradeWithoutScale("a grade needs a scale", "faithfulness", 4.0),
        DecisionRequestError(400, "bad question", param="questions.q1", code="invalid"),
        RequestError("no messages", "messages"),
        OptionRejectedError("logprobs are not supported", "logprobs"),
    )
}


def _error_classes() -> list[type[BaseException]]:
    found = []
    for module in pkgutil.walk_packages(veracity.__path__, "veracity."):
        if module.name.endswith("__main__"):
            continue
        for _, cls in inspect.getmembers(importlib.import_module(module.name), inspect.isclass):
            if issubclass(cls, BaseException) and cls.__module__ == module.name:
                found.append(cls)
    return found


def _takes_more_than_a_message(cls: type[BaseException]) -> bool:
    if cls.__init__ is BaseException.__init__:
        return False
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    return sum(p.default is p.empty and p.kind is not p.VAR_POSITIONAL for p in parameters) > 1


def _state(error: BaseException) -> dict[str, Any]:
    return {"type": type(error), "str": str(error), "args": error.args, **vars(error)}


def test_every_error_that_takes_more_than_a_message_is_tried_here() -> None:
    needing = {cls for cls in _error_classes() if _takes_more_than_a_message(cls)}
    needing.discard(importlib.import_module("veracity.decisions.client")._PartsFailed)
    assert needing <= set(MADE), sorted(c.__qualname__ for c in needing - set(MADE))


@pytest.mark.parametrize("error", MADE.values(), ids=lambda e: type(e).__name__)
def test_an_error_comes_back_from_pickle_whole(error: BaseException) -> None:
    back = pickle.loads(pickle.dumps(error))
    assert _state(back) == _state(error)
