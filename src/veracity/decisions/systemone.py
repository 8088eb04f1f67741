"""The System One format: ``POST {base_url}/systemone``, a state and a map of named
questions (llama.cpp's llama-server, Ollama, vLLM, SGLang, LiteLLM, sparrow-decider…)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from veracity.chat.openai_chat import sdk_response
from veracity.decisions.base import Question
from veracity.decisions.client import DecisionClient
from veracity.decisions.limits import SYSTEMONE_LIMITS
from veracity.decisions.reading import Part
from veracity.transport import CallFailedError
from veracity.transport.urls import public_url

if TYPE_CHECKING:
    import openai

KEY_ENV = "SYSTEMONE_API_KEY"
BASE_URL_ENV = "SYSTEMONE_BASE_URL"
# The question types of System One, by the kind of question veracity asks.
WIRE_TYPES = {"predicate": "noul", "choice": "choice", "score": "score"}


class SystemOne(DecisionClient):
    """A System One server (``--judge systemone/MODEL``).

    The base URL is the server's API root, as for an OpenAI-compatible chat server
    (``http://127.0.0.1:8080/v1``): ``base_url``, else ``SYSTEMONE_BASE_URL``; there is no
    default, a missing one is a ``ValueError``. The key is ``api_key``, else
    ``SYSTEMONE_API_KEY``, else a placeholder (most System One servers are local and take
    none); ``OPENAI_API_KEY`` is never sent to it, the server being anyone's.

    Limits: 64 questions a request and 26 options a question (vLLM's and Ollama's) unless
    ``limits`` says otherwise; lower ones are learnt from the server's refusals."""

    provider = "systemone"
    key_env = KEY_ENV
    base_url_env = BASE_URL_ENV
    default_limits = SYSTEMONE_LIMITS
    path = "/systemone"
    predicate_key = "noul"
    wire_types = WIRE_TYPES
    needs_base_url = True

    def request_body(self, state: str, questions: tuple[Question, ...]) -> dict[str, Any]:
        return {
            "model": self.model,
            "state": state,
            "questions": {question.name: _question(question) for question in questions},
        }

    async def _send(
        self, client: openai.AsyncOpenAI, state: str, questions: tuple[Question, ...]
    ) -> object:
        # The SDK's documented raw request, as the chat judge posts its completions: the
        # same client, headers, error classes and bounds as its own resources. A body that
        # is no JSON raises json.JSONDecodeError, retried like a broken connection.
        response = await client.post(
            "/systemone", body=self.request_body(state, questions), cast_to=sdk_response()
        )
        return json.loads(response.content)

    def _read(self, body: dict[str, Any], questions: tuple[Question, ...]) -> Part:
        answers = body.get("answers")
        if not isinstance(answers, dict):
            raise CallFailedError(
                "the server's reply is unusable: no map of answers by question name"
            )
        asked = {question.name for question in questions}
        return Part(
            answers={q.name: self.answer_of(q, answers.get(q.name)) for q in questions},
            usage=self.usage_of(body),
            model=self.model_of(body.get("model")),
            notes=self.reader.notes_on_extra([name for name in answers if name not in asked]),
        )

    @staticmethod
    def by_value(question: Question, probabilities: object) -> object:
        """A choice's or score's probabilities by option value. A score's are by level index
        (``"0"`` for the lowest), or by the levels' labels where the server keys them so."""
        if question.kind != "score" or not isinstance(probabilities, dict):
            return probabilities
        labels = question.option_values()
        if all(key in labels for key in probabilities) or not all(
            isinstance(key, str) and key.isdigit() for key in probabilities
        ):
            return probabilities
        # By index; one past the last level stays as it is, for the reader to refuse.
        return {
            labels[int(key)] if int(key) < len(labels) else key: p
            for key, p in probabilities.items()
        }

    def not_implemented(self, where: str, details: str) -> str:
        return (
            f"the server at {public_url(self.base_url)} serves a chat model, not a decision "
            f"model (POST {where} answered 501: {details}): load a decision model there (in "
            "llama-server a decision GGUF "
            f"such as Laya, Julia-1 or Kev), or judge with this model as a chat model "
            "through its chat endpoint (--judge openai/MODEL with the same --base-url)"
        )

    def not_found(self, where: str, details: str) -> str:
        return (
            f"the server has no System One endpoint: POST {where} answered 404 ({details}); "
            "check --base-url (the server's API root, ending in /v1 on llama-server, Ollama "
            "and vLLM) and that the server serves decision models"
        )


def _question(question: Question) -> dict[str, Any]:
    wire: dict[str, Any] = {
        "type": WIRE_TYPES[question.kind],
        "instructions": question.instructions,
    }
    if question.kind == "choice":
        wire["criteria"] = {option.value: option.description for option in question.options}
    elif question.kind == "score":
        # A level's text: its label, and what it means where the question says.
        wire["criteria"] = [
            f"{option.value}: {option.description}" if option.description else option.value
            for option in question.options
        ]
    return wire
