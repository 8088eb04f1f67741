"""The System One wire contract, restated as our own test data.

The shapes are those llama.cpp's server tests pin for ``POST /v1/systemone``
(tools/server/tests/unit/test_systemone.py in llama.cpp; each check below names the
upstream test it restates). A decision server veracity talks to — our fake, and
sparrow-decider where it agrees — is held to them.
"""

from __future__ import annotations

import math
from typing import Any

STATE = "My parcel arrived broken and the shop has not answered my three emails."
QUESTIONS: dict[str, Any] = {
    "team": {
        "type": "choice",
        "instructions": "Which team should take this ticket?",
        "criteria": {"returns": "damaged or broken goods", "billing": None, "delivery": None},
    },
    "priority": {
        "type": "score",
        "instructions": "How soon must the shop answer?",
        "criteria": ["next month", "next week", "tomorrow", "within the hour"],
    },
    "upset": {"type": "noul", "instructions": "Is the customer upset?"},
}

# The keys each answer type publishes (upstream: ANSWER_KEYS of test_systemone_wire_contract):
# a noul's one number is its own confidence; choice and score summarise their distribution.
ANSWER_KEYS = {
    "noul": {"type", "noul"},
    "choice": {"type", "choice", "probabilities", "confidence"},
    "score": {"type", "score", "legend", "probabilities", "confidence"},
}
ENVELOPE_KEYS = {"model", "answers", "usage"}
USAGE_KEYS = {"input_tokens", "output_tokens"}
ERROR_KEYS = {"message", "type", "code"}
# The error type of each status (upstream: ERROR_CONTRACT of test_systemone_wire_contract).
ERROR_TYPES = {
    400: "invalid_request_error",
    413: "request_too_large_error",
    422: "unprocessable_entity_error",
    429: "rate_limit_error",
    501: "not_supported_error",
}
# Bodies llama-server refuses with 422 (upstream: test_systemone_invalid_request).
INVALID_BODIES: list[dict[str, Any]] = [
    {"questions": QUESTIONS},
    {"state": STATE},
    {"state": STATE, "questions": {}},
    {"state": STATE, "model": 7, "questions": QUESTIONS},
    {"state": STATE, "questions": {"q": {"type": "perhaps", "instructions": "x"}}},
    {"state": STATE, "questions": {"q": {"type": "choice", "instructions": "x"}}},
    {"state": STATE, "questions": {"q": {"type": "choice", "instructions": "x", "criteria": {}}}},
    {"state": STATE, "questions": {"q": {"type": "score", "instructions": "x", "criteria": ["1"]}}},
    {
        "state": STATE,
        "questions": {"q": {"type": "score", "instructions": "x", "criteria": ["l"] * 11}},
    },
]
# Instructions that are no question (upstream: test_systemone_instructions_must_carry_content).
EMPTY_INSTRUCTIONS: list[Any] = ["", {}, [], 0, 1.5, False, True, None]


def choice_confidence(probabilities: dict[str, float]) -> float:
    """(N * p_max - 1) / (N - 1), never below 0."""
    n = len(probabilities)
    if n < 2:
        return 1.0
    top = max(probabilities.values())
    return max(0.0, (top - 1 / n) / (1 - 1 / n))


def score_confidence(probabilities: dict[str, float]) -> float:
    """1 - the expected distance to the most likely level over that distance under a
    uniform distribution, never below 0."""
    ordered = [probabilities[key] for key in sorted(probabilities, key=int)]
    n = len(ordered)
    if n < 2:
        return 1.0
    mode = ordered.index(max(ordered))
    distance = sum(p * abs(i - mode) for i, p in enumerate(ordered))
    uniform = sum(abs(i - (n - 1) / 2) for i in range(n)) / n
    return max(0.0, 1.0 - distance / uniform)


def check_answer(question: dict[str, Any], answer: dict[str, Any]) -> None:
    """One answer has its type's keys and a valid distribution over the question's options
    (upstream: test_systemone, test_systemone_wire_contract)."""
    kind = question["type"]
    assert answer["type"] == kind
    assert set(answer) == ANSWER_KEYS[kind], answer
    if kind == "noul":
        assert isinstance(answer["noul"], float | int)
        assert 0.0 <= answer["noul"] <= 1.0
        return
    probabilities = answer["probabilities"]
    assert all(isinstance(p, float | int) and 0.0 <= p <= 1.0 for p in probabilities.values())
    assert abs(math.fsum(probabilities.values()) - 1.0) < 1e-3
    assert 0.0 <= answer["confidence"] <= 1.0
    if kind == "choice":
        assert list(probabilities) == list(question["criteria"])
        assert answer["choice"] in question["criteria"]
        assert answer["choice"] == max(probabilities, key=probabilities.__getitem__)
        return
    levels = question["criteria"]
    keys = [str(i) for i in range(len(levels))]
    assert list(probabilities) == keys
    assert list(answer["legend"]) == keys
    assert list(answer["legend"].values()) == levels
    assert 0.0 <= answer["score"] <= len(levels) - 1
    expected = sum(i * p for i, p in enumerate(probabilities.values()))
    assert abs(answer["score"] - expected) < 1e-3


def check_reply(questions: dict[str, Any], body: dict[str, Any]) -> None:
    """The envelope, the usage, and every answer under the key it was asked with, in the
    request's order (upstream: test_systemone_wire_contract)."""
    assert set(body) >= ENVELOPE_KEYS
    assert isinstance(body["model"], str) and body["model"]
    assert set(body["usage"]) == USAGE_KEYS
    assert isinstance(body["usage"]["input_tokens"], int)
    assert body["usage"]["output_tokens"] == 0
    assert list(body["answers"]) == list(questions)
    for name, question in questions.items():
        check_answer(question, body["answers"][name])


def check_error(status: int, body: dict[str, Any], error_type: str | None = None) -> None:
    """``{"error": {"message", "type", "code"}}`` and nothing else, the type the status's
    own (upstream: contract_of in test_systemone_wire_contract)."""
    assert set(body) == {"error"}, body
    assert set(body["error"]) == ERROR_KEYS, body
    assert body["error"]["type"] == (error_type or ERROR_TYPES[status])
    assert body["error"]["code"] == status
    assert body["error"]["message"]
