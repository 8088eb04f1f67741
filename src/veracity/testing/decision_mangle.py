"""Hostile decision replies: what a broken or malicious decision server sends back, for a
client's tests (``FakeDecisionServer(mangling=...)``).

Each mangling takes the well-formed reply the fake would have sent and breaks it one way;
a callable hook (:data:`DecisionMangleHook`) may break it any other way.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args

from veracity.testing._decision_wire import Format, error_reply

DecisionMangling = Literal[
    "wrong_type",
    "string_probability",
    "nan_probability",
    "negative_probability",
    "unnormalised",
    "unasked_answer",
    "missing_answer",
    "huge_body",
    "echo_key",
    "echo_key_in_model",
]
DECISION_MANGLINGS: tuple[DecisionMangling, ...] = get_args(DecisionMangling)
UNASKED_NAME = "never_asked"
# Past the 32 MiB a judge's reply may take (veracity.transport.bounded).
HUGE_BODY_BYTES = 40 * 1024 * 1024
_NEXT_TYPE = {
    "noul": "choice",
    "predicate": "choice",
    "choice": "score",
    "score": "noul",
}


@dataclass(frozen=True)
class DecisionExchange:
    """What a mangling sees: the format (``"systemone"`` or ``"openai"``), the request's
    JSON body, the reply the fake would send, and the API key the request carried."""

    format: Format
    request: dict[str, Any]
    reply: dict[str, Any]
    api_key: str | None


DecisionMangleHook = Callable[[DecisionExchange], "dict[str, Any] | bytes | tuple[int, Any]"]
"""Returns the body to send instead: a JSON object or raw bytes (HTTP 200), or a pair
``(status, body)``."""


def mangle_decision(
    kind: DecisionMangling, exchange: DecisionExchange, *, huge_bytes: int = HUGE_BODY_BYTES
) -> tuple[int, dict[str, Any] | bytes]:
    """The status and body that ``kind`` sends instead of ``exchange.reply``.

    - ``wrong_type``: the first answer's ``type`` names another type than was asked
      (noul/predicate → choice, choice → score, score → noul), its fields unchanged.
    - ``string_probability``: the first answer's probabilities are strings (``"0.7"``).
    - ``nan_probability``: the first answer's first probability is NaN (sent as the bare
      ``NaN`` token Python's ``json`` writes and reads).
    - ``negative_probability``: the first answer's first probability is -0.25 (the second
      gains 0.25, so a distribution still sums to one).
    - ``unnormalised``: the first answer's probabilities are multiplied by 1.5 (a
      predicate's / noul's is 1.5).
    - ``unasked_answer``: an extra answer, a predicate/noul named ``never_asked``.
    - ``missing_answer``: OpenAI: the last answer left out (no refusal in its place);
      System One, where a left-out question is a refusal: the ``answers`` member itself.
    - ``huge_body``: the reply padded to ``huge_bytes`` (default 40 MiB) with a
      ``padding`` member.
    - ``echo_key``: an error (System One 422, OpenAI 400) whose message quotes the
      request's ``Authorization`` header, key and all.
    - ``echo_key_in_model``: the reply as sent, its ``model`` the request's key.
    """
    reply = json.loads(json.dumps(exchange.reply))  # a deep copy
    answers = reply.get("answers")
    first = _first_answer(answers)
    key = exchange.api_key or ""
    if kind == "echo_key":
        status = 422 if exchange.format == "systemone" else 400
        message = f"request rejected upstream (Authorization: Bearer {key})"
        return status, error_reply(exchange.format, status, message)
    if kind == "echo_key_in_model":
        reply["model"] = key
    elif kind == "huge_body":
        reply["padding"] = "x" * max(0, huge_bytes - len(json.dumps(reply)))
    elif kind == "unasked_answer":
        _add_unasked(exchange.format, reply)
    elif kind == "missing_answer":
        if exchange.format == "systemone":
            reply.pop("answers", None)
        elif isinstance(answers, list) and answers:
            answers.pop()
    elif first is not None:
        _break_first(kind, first)
    return 200, reply


def _first_answer(answers: Any) -> dict[str, Any] | None:
    if isinstance(answers, dict):
        answers = list(answers.values())
    for answer in answers if isinstance(answers, list) else []:
        if isinstance(answer, dict) and answer.get("type") != "refusal":
            return answer
    return None


def _add_unasked(fmt: Format, reply: dict[str, Any]) -> None:
    answers = reply.get("answers")
    if isinstance(answers, dict):
        answers[UNASKED_NAME] = {"type": "noul", "noul": 0.5}
    elif isinstance(answers, list):
        answers.append({"type": "predicate", "name": UNASKED_NAME, "probability": 0.5})


def _probability_slots(answer: dict[str, Any]) -> list[tuple[Any, Any]]:
    """(container, key) of each probability of an answer, in option order."""
    for single in ("noul", "probability"):
        if single in answer and "probabilities" not in answer:
            return [(answer, single)]
    probabilities = answer.get("probabilities")
    if isinstance(probabilities, dict):
        return [(probabilities, key) for key in probabilities]
    if isinstance(probabilities, list):
        return [(item, "probability") for item in probabilities if isinstance(item, dict)]
    return []


def _break_first(kind: DecisionMangling, answer: dict[str, Any]) -> None:
    if kind == "wrong_type":
        answer["type"] = _NEXT_TYPE.get(str(answer.get("type")), "noul")
        return
    slots = _probability_slots(answer)
    if not slots:
        return
    if kind == "string_probability":
        for container, key in slots:
            container[key] = str(container[key])
    elif kind == "nan_probability":
        container, key = slots[0]
        container[key] = float("nan")
    elif kind == "negative_probability":
        container, key = slots[0]
        if len(slots) > 1:
            second, second_key = slots[1]
            second[second_key] = second[second_key] + container[key] + 0.25
        container[key] = -0.25
    elif kind == "unnormalised":
        if len(slots) == 1:
            container, key = slots[0]
            container[key] = 1.5
        for container, key in slots if len(slots) > 1 else []:
            container[key] = container[key] * 1.5
