"""OpenAI's Decisions API (``POST /v1/decisions``), through the official ``openai`` SDK's
decisions resource."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from veracity.decisions.base import Option, Question
from veracity.decisions.client import DecisionClient
from veracity.decisions.limits import OPENAI_DECISIONS_LIMITS
from veracity.decisions.reading import Part
from veracity.transport import CallFailedError

if TYPE_CHECKING:
    import openai

KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = "OPENAI_BASE_URL"


class OpenAIDecisions(DecisionClient):
    """OpenAI's Decisions API (``--judge openai-decisions/MODEL``, e.g. ``gpt-6-luna``).

    The key is ``api_key``, else ``OPENAI_API_KEY``; the base URL ``base_url``, else
    ``OPENAI_BASE_URL``, else OpenAI's: as for the OpenAI chat judge. Limits: 400 questions
    a request and 255 choices a question unless ``limits`` says otherwise."""

    provider = "openai-decisions"
    key_env = KEY_ENV
    base_url_env = BASE_URL_ENV
    default_limits = OPENAI_DECISIONS_LIMITS
    path = "/decisions"

    def request_params(self, state: str, questions: tuple[Question, ...]) -> dict[str, Any]:
        return {
            "model": self.model,
            "input": state,
            "questions": [_question(question) for question in questions],
        }

    async def _send(
        self, client: openai.AsyncOpenAI, state: str, questions: tuple[Question, ...]
    ) -> object:
        # The raw body, not the SDK's typed Decision: the SDK builds that without
        # validating it (a NaN, a probability of 7 or an answer of another type would come
        # through as given), and veracity reads every format by one strict reader. A body
        # that is no JSON raises json.JSONDecodeError, retried like a broken connection.
        raw = await client.decisions.with_raw_response.create(
            **self.request_params(state, questions)
        )
        return json.loads(raw.content)

    def _read(self, body: dict[str, Any], questions: tuple[Question, ...]) -> Part:
        answers = body.get("answers")
        if not isinstance(answers, list):
            raise CallFailedError("the server's reply is unusable: no list of answers")
        by_name = {q.name: q for q in questions}
        found: dict[str, object] = {}
        extra: list[object] = []
        for position, answer in enumerate(answers):
            # Answers come in question order; a named one is matched by its name.
            name = answer.get("name") if isinstance(answer, dict) else None
            if name is None and position < len(questions):
                name = questions[position].name
            if isinstance(name, str) and name in by_name and name not in found:
                found[name] = answer
            else:
                extra.append(name if name is not None else f"#{position + 1}")
        return Part(
            answers={q.name: self.answer_of(q, found.get(q.name)) for q in questions},
            usage=self.usage_of(body),
            model=self.model_of(body.get("model")),
            notes=self.reader.notes_on_extra(extra),
        )

    @staticmethod
    def by_value(question: Question, probabilities: object) -> object:
        """A choice's (``value``) or score's (``label``) probabilities by option value; a list
        of another shape is passed on as it is, for the reader to refuse."""
        if not isinstance(probabilities, list):
            return probabilities
        key = "value" if question.kind == "choice" else "label"
        by_value: dict[str, object] = {}
        for item in probabilities:
            if not isinstance(item, dict) or not isinstance(item.get(key), str):
                return probabilities
            value = item[key]
            if value in by_value:
                return probabilities  # an option twice: no distribution
            by_value[value] = item.get("probability")
        return by_value

    def not_implemented(self, where: str, details: str) -> str:
        return (
            f"the server at {where} does not implement OpenAI's Decisions API (it answered "
            f"501: {details}): judge with a System One server (--judge systemone/MODEL) or "
            "a chat model (--judge openai/MODEL)"
        )

    def not_found(self, where: str, details: str) -> str:
        return (
            f"POST {where} answered 404 ({details}): the server has no Decisions endpoint, "
            f"or no model {self.model!r} (check --base-url / OPENAI_BASE_URL and the model)"
        )


def _question(question: Question) -> dict[str, Any]:
    wire: dict[str, Any] = {
        "type": question.kind,
        "name": question.name,
        "instructions": question.instructions,
    }
    if question.kind == "choice":
        wire["choices"] = [_described("value", o) for o in question.options]
    elif question.kind == "score":
        wire["levels"] = [_described("label", o) for o in question.options]
    return wire


def _described(key: str, option: Option) -> dict[str, str]:
    """A choice or level on the wire: its value, and its description where it has one."""
    return (
        {key: option.value, "description": option.description}
        if option.description
        else {key: option.value}
    )
