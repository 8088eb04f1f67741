"""The two decision wire formats, as the fake decision server reads and writes them.

System One (``POST /v1/systemone``) follows llama.cpp's llama-server: its request checks
and their messages, its answer shapes (``noul``; ``choice`` with ``probabilities`` and
``confidence``; ``score`` with ``legend``, ``probabilities`` and ``confidence``), and its
error body ``{"error": {"code", "message", "type"}}`` with one type per status. OpenAI
Decisions (``POST /v1/decisions``) follows the ``openai`` SDK's ``Decision`` type and
OpenAI's error body ``{"error": {"message", "type", "param", "code"}}``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from veracity._pickled import PickledWhole
from veracity.decisions.base import Option, Question, QuestionKind, ServerLimits
from veracity.testing._request import approx_tokens, content_text
from veracity.testing.payloads import error_body

Format = Literal["systemone", "openai"]

# llama-server parses at most 4096 questions (more is a 413), and takes up to 255 options.
SYSTEMONE_LIMITS = ServerLimits(max_questions=4096, max_options=255)
# OpenAI's Decisions API: 1-400 questions, 2-255 choices.
OPENAI_LIMITS = ServerLimits(max_questions=400, max_options=255)
SCORE_LEVELS = (2, 10)
# llama-server's error type for each status (tools/server's systemone wire contract).
SYSTEMONE_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    413: "request_too_large_error",
    422: "unprocessable_entity_error",
    429: "rate_limit_error",
    500: "server_error",
    501: "not_supported_error",
    503: "unavailable_error",
}
NOT_A_DECISION_MODEL = (
    "This model is not a decision model: it answers chat completions, not typed questions"
)
_SYSTEMONE_KINDS: dict[str, QuestionKind] = {
    "noul": "predicate",
    "choice": "choice",
    "score": "score",
}
_OPENAI_KINDS: tuple[QuestionKind, ...] = ("predicate", "choice", "score")


class DecisionRequestError(PickledWhole, ValueError):
    """A request the server refuses: its status, message and (OpenAI) param and code."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        param: str | None = None,
        code: str | None = None,
        kind: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.param, self.code, self.kind = status, param, code, kind


@dataclass(frozen=True)
class DecisionCall:
    """One decision request, whichever format: the state as text and the questions, with
    the names the request gave them (an OpenAI question may have none)."""

    format: Format
    model: str | None
    state: str
    questions: tuple[Question, ...]
    names: tuple[str | None, ...]
    # An OpenAI choice's values as sent (a value may be a boolean); empty elsewhere.
    choice_values: tuple[tuple[str | bool, ...], ...] = ()

    def input_tokens(self) -> int:
        """About four characters a token (the chat fake's count): the state once — the
        questions share it — and every question with its options."""
        return approx_tokens(self.state) + sum(approx_tokens(_rendered(q)) for q in self.questions)


def _rendered(question: Question) -> str:
    lines = [question.kind, question.instructions]
    lines += [
        f"{o.value} — {o.description}" if o.description else o.value for o in question.options
    ]
    return "\n".join(lines)


def as_text(value: Any) -> str:
    """A string as it is; any other JSON value as compact JSON text (as llama-server gives
    an object state to the model)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def error_reply(
    fmt: Format,
    status: int,
    message: str,
    *,
    param: str | None = None,
    code: str | None = None,
    kind: str | None = None,
) -> dict[str, Any]:
    """An error body as the format's servers send it (``kind``: System One's error type
    where it is not the status's own)."""
    if fmt == "systemone":
        kind = kind or SYSTEMONE_ERROR_TYPES.get(status, "server_error")
        return {"error": {"code": status, "message": message, "type": kind}}
    return error_body("openai", status, message, param=param, code=code)


def check_state_tokens(call: DecisionCall, limits: ServerLimits) -> None:
    """A 400 when the request's tokens exceed ``limits.max_state_tokens``, worded as
    llama-server's context error or OpenAI's ``context_length_exceeded``."""
    bound = limits.max_state_tokens
    tokens = call.input_tokens()
    if bound is None or tokens <= bound:
        return
    if call.format == "systemone":
        raise DecisionRequestError(
            400,
            f"the request ({tokens} tokens) exceeds the available context size ({bound} "
            "tokens), try increasing it",
            kind="exceed_context_size_error",
        )
    raise DecisionRequestError(
        400,
        f"This model's maximum context length is {bound} tokens. However, your input "
        f"resulted in {tokens} tokens. Please reduce the length of the input.",
        param="input",
        code="context_length_exceeded",
    )


# --- System One ----------------------------------------------------------------------


def _has_content(value: Any) -> bool:
    # llama-server: only a non-empty string, object or array is a question.
    return isinstance(value, str | dict | list) and bool(value)


def parse_systemone(
    body: Mapping[str, Any], limits: ServerLimits, limit_status: int | None
) -> DecisionCall:
    """Read a ``/v1/systemone`` body as llama-server checks it (422 for what it refuses,
    413 past its questions, 422 past its options)."""
    model = body.get("model")
    if model is not None and not isinstance(model, str):
        raise DecisionRequestError(422, '"model" must be a string')
    if body.get("state") is None:
        raise DecisionRequestError(422, '"state" must be provided')
    videos = body.get("videos")
    if videos is not None and videos != []:
        raise DecisionRequestError(422, '"videos" is not supported')
    raw = body.get("questions")
    if not isinstance(raw, dict) or not raw:
        raise DecisionRequestError(422, '"questions" must be a non-empty object')
    if len(raw) > limits.max_questions:
        raise DecisionRequestError(
            limit_status or 413,
            f"The request has {len(raw)} questions, the maximum is {limits.max_questions}. "
            'Give fewer "questions".',
        )
    questions = tuple(_systemone_question(name, q, limits, limit_status) for name, q in raw.items())
    return DecisionCall(
        "systemone", model, as_text(body["state"]), questions, tuple(q.name for q in questions)
    )


def _systemone_question(
    name: str, raw: Any, limits: ServerLimits, limit_status: int | None
) -> Question:
    def refused(message: str, status: int = 422) -> DecisionRequestError:
        return DecisionRequestError(status, f"questions.{name}: {message}")

    if not isinstance(raw, dict):
        raise refused("must be an object")
    instructions = raw.get("instructions")
    if not _has_content(instructions):
        raise refused('"instructions" must be a non-empty string, object or array')
    type_name = raw.get("type")
    kind = _SYSTEMONE_KINDS.get(type_name) if isinstance(type_name, str) else None
    criteria = raw.get("criteria")
    if kind == "choice":
        if not isinstance(criteria, dict) or len(criteria) < 2:
            raise refused('"criteria" must be an object of at least 2 options')
        options = tuple(Option(str(k), _description(v)) for k, v in criteria.items())
    elif kind == "score":
        low, high = SCORE_LEVELS
        if not isinstance(criteria, list) or not low <= len(criteria) <= high:
            raise refused(f'"criteria" must be an array of {low} to {high} levels')
        options = tuple(Option(str(i), _description(v)) for i, v in enumerate(criteria))
    elif kind == "predicate":
        if criteria is not None and not isinstance(criteria, dict):
            raise refused('"criteria" must be an object')
        options = ()
    else:
        raise refused('"type" must be one of: choice, score, noul')
    if len(options) > limits.max_options:
        raise refused(
            f"too many options ({len(options)}), at most {limits.max_options} are supported",
            limit_status or 422,
        )
    return Question(name, kind, as_text(instructions), options)


def _description(value: Any) -> str:
    return "" if value is None else as_text(value)


def systemone_answer(question: Question, probabilities: Sequence[float]) -> dict[str, Any]:
    """One answer in llama-server's shape for its question's type."""
    if question.kind == "predicate":
        return {"type": "noul", "noul": probabilities[1]}
    by_value = {o.value: p for o, p in zip(question.options, probabilities, strict=True)}
    if question.kind == "choice":
        return {
            "type": "choice",
            "choice": max(by_value, key=lambda value: by_value[value]),
            "probabilities": by_value,
            "confidence": choice_confidence(probabilities),
        }
    return {
        "type": "score",
        "score": expected_level(probabilities),
        "legend": {o.value: o.description for o in question.options},
        "probabilities": by_value,
        "confidence": score_confidence(probabilities),
    }


def systemone_reply(model: str, answers: dict[str, Any], input_tokens: int) -> dict[str, Any]:
    return {
        "model": model,
        "answers": answers,
        "usage": {"input_tokens": input_tokens, "output_tokens": 0},
    }


# --- OpenAI Decisions ----------------------------------------------------------------


def _missing(param: str) -> DecisionRequestError:
    return DecisionRequestError(
        400,
        f"Missing required parameter: '{param}'.",
        param=param,
        code="missing_required_parameter",
    )


def _too_long(param: str, limit: int, got: int, status: int | None) -> DecisionRequestError:
    return DecisionRequestError(
        status or 400,
        f"Invalid '{param}': array too long. Expected an array with maximum length {limit}, "
        f"but got an array with length {got} instead.",
        param=param,
        code="array_above_max_length",
    )


def _too_short(param: str, limit: int, got: int) -> DecisionRequestError:
    return DecisionRequestError(
        400,
        f"Invalid '{param}': array too short. Expected an array with minimum length {limit}, "
        f"but got an array with length {got} instead.",
        param=param,
        code="array_below_min_length",
    )


def openai_text(value: Any) -> str:
    """An OpenAI Decisions input or instructions, as text: a string, or the text of its
    messages, parts, tool calls and outputs (a JSON part as JSON text; images give none)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        if value.get("type") == "input_json":
            return as_text(value.get("data"))
        for key in ("content", "output", "arguments", "input", "text"):
            if key in value:
                return openai_text(value[key])
        return ""
    if isinstance(value, list):
        return "\n".join(text for text in map(openai_text, value) if text)
    return content_text(value)


def parse_openai(
    body: Mapping[str, Any], limits: ServerLimits, limit_status: int | None
) -> DecisionCall:
    """Read a ``/v1/decisions`` body as OpenAI checks it (400s naming the param)."""
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise _missing("model")
    if "input" not in body or body["input"] in (None, "", []):
        raise _missing("input")
    raw = body.get("questions")
    if not isinstance(raw, list):
        raise _missing("questions")
    if not raw:
        raise _too_short("questions", 1, 0)
    if len(raw) > limits.max_questions:
        raise _too_long("questions", limits.max_questions, len(raw), limit_status)
    questions: list[Question] = []
    names: list[str | None] = []
    values: list[tuple[str | bool, ...]] = []
    for index, item in enumerate(raw):
        question, name, sent = _openai_question(index, item, limits, limit_status)
        if name is not None and name in names:
            raise DecisionRequestError(
                400, f"Duplicate question name '{name}'.", param=f"questions[{index}].name"
            )
        questions.append(question)
        names.append(name)
        values.append(sent)
    state = openai_text(body["input"])
    return DecisionCall("openai", model, state, tuple(questions), tuple(names), tuple(values))


def _openai_question(
    index: int, raw: Any, limits: ServerLimits, limit_status: int | None
) -> tuple[Question, str | None, tuple[str | bool, ...]]:
    where = f"questions[{index}]"
    if not isinstance(raw, dict):
        raise DecisionRequestError(400, f"Invalid type for '{where}': expected an object.")
    kind = raw.get("type")
    if kind not in _OPENAI_KINDS:
        raise DecisionRequestError(
            400,
            f"Invalid value: '{kind}'. Supported values are: 'predicate', 'choice', and 'score'.",
            param=f"{where}.type",
            code="invalid_value",
        )
    name = raw.get("name")
    if name is not None and not isinstance(name, str):
        raise DecisionRequestError(400, f"Invalid type for '{where}.name': expected a string.")
    instructions = raw.get("instructions")
    if not _has_content(instructions):
        raise _missing(f"{where}.instructions")
    options: tuple[Option, ...] = ()
    sent: tuple[str | bool, ...] = ()
    if kind == "choice":
        sent, options = _openai_options(raw.get("choices"), f"{where}.choices", "value")
        # Typed values: true and "true" are distinct choices.
        if len({(type(v), v) for v in sent}) != len(sent):
            raise DecisionRequestError(400, "Each choice must be unique.", param=f"{where}.choices")
    elif kind == "score":
        _, options = _openai_options(raw.get("levels"), f"{where}.levels", "label")
    if len(options) > limits.max_options:
        raise _too_long(f"{where}.{'choices' if kind == 'choice' else 'levels'}",
                        limits.max_options, len(options), limit_status)  # fmt: skip
    internal = name if name else f"#{index}"
    return Question(internal, kind, openai_text(instructions), options), name or None, sent


def _openai_options(
    raw: Any, param: str, key: str
) -> tuple[tuple[str | bool, ...], tuple[Option, ...]]:
    """A choice's values (as sent, and as option text) or a score's levels."""
    if not isinstance(raw, list):
        raise _missing(param)
    if len(raw) < 2:
        raise _too_short(param, 2, len(raw))
    if key == "label" and len(raw) > SCORE_LEVELS[1]:
        raise _too_long(param, SCORE_LEVELS[1], len(raw), None)
    sent: list[str | bool] = []
    options: list[Option] = []
    for i, item in enumerate(raw):
        value = item.get(key) if isinstance(item, dict) else None
        if not isinstance(value, str | bool) or (key == "label" and isinstance(value, bool)):
            raise _missing(f"{param}[{i}].{key}")
        sent.append(value)
        # A boolean value's text is its JSON ("true"), as a decision judge reads options.
        text = json.dumps(value) if isinstance(value, bool) else value
        options.append(Option(text, str(item.get("description") or "")))
    return tuple(sent), tuple(options)


def openai_answer(
    question: Question,
    name: str | None,
    probabilities: Sequence[float] | None,
    values: Sequence[str | bool] = (),
) -> dict[str, Any]:
    """One answer in the SDK's ``Decision.answers`` shape; ``None`` is a refusal.
    ``values``: a choice's values as the request sent them (strings or booleans)."""
    if probabilities is None:
        return {"type": "refusal", "name": name}
    if question.kind == "predicate":
        return {"type": "predicate", "name": name, "probability": probabilities[1]}
    if question.kind == "choice":
        values = list(values) or [o.value for o in question.options]
        top = max(range(len(values)), key=lambda i: probabilities[i])
        return {
            "type": "choice",
            "name": name,
            "choice": values[top],
            "probabilities": [
                {"value": v, "probability": p} for v, p in zip(values, probabilities, strict=True)
            ],
            "confidence": choice_confidence(probabilities),
        }
    return {
        "type": "score",
        "name": name,
        "score": expected_level(probabilities),
        "probabilities": [
            {"label": o.value, "value": i, "probability": p}
            for i, (o, p) in enumerate(zip(question.options, probabilities, strict=True))
        ],
        "confidence": score_confidence(probabilities),
    }


def openai_reply(model: str, answers: list[dict[str, Any]], input_tokens: int) -> dict[str, Any]:
    return {
        "model": model,
        "answers": answers,
        "usage": {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cache_write_tokens": 0, "cached_tokens": 0},
            "output_tokens": 0,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input_tokens,
        },
    }


# --- summaries of a distribution -----------------------------------------------------


def expected_level(probabilities: Sequence[float]) -> float:
    """A score: the probability-weighted level index (0 for the lowest level)."""
    return math.fsum(i * p for i, p in enumerate(probabilities))


def choice_confidence(probabilities: Sequence[float]) -> float:
    """``(N * p_max - 1) / (N - 1)``: 0 for a uniform distribution, 1 for a certain one."""
    n = len(probabilities)
    if n < 2:
        return 1.0
    return max(0.0, (max(probabilities) - 1 / n) / (1 - 1 / n))


def score_confidence(probabilities: Sequence[float]) -> float:
    """1 minus the expected distance to the most likely level, relative to the same
    distance under a uniform distribution (llama-server's rule for a score)."""
    n = len(probabilities)
    if n < 2:
        return 1.0
    mode = max(range(n), key=lambda i: probabilities[i])
    distance = math.fsum(p * abs(i - mode) for i, p in enumerate(probabilities))
    uniform = sum(abs(i - (n - 1) / 2) for i in range(n)) / n
    return max(0.0, 1.0 - distance / uniform)
