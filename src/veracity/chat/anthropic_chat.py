"""Anthropic's Messages API, through the official ``anthropic`` SDK."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any, Unpack

import anthropic

from veracity.chat.base import ChatReply
from veracity.chat.received import received_text
from veracity.chat.sdk import ChatOptions, RequestOptions, SDKChat, as_rejection, count
from veracity.dataset.fields import a_json_type
from veracity.prompts import ChatMessage, OutputSpec
from veracity.transport import CallFailedError
from veracity.transport.bounded import bounded_hooks
from veracity.transport.retry import ErrorClass, classify_sdk_error
from veracity.transport.urls import public_url
from veracity.types import Usage

# An endpoint (a proxy, a compatible server) that does not take a forced tool call.
_OPTION_WORDS = (("response_format", ("tool_choice", "tools", "input_schema")),)


class AnthropicChat(SDKChat[anthropic.AsyncAnthropic]):
    """Claude as a judge. Structured output is a forced tool call whose input schema is
    the prompt's output schema; with ``structured_output="text"`` the reply is free text
    that the parser handles like any other. The Messages API gives no log-probabilities:
    verdicts stay hard."""

    provider = "anthropic"
    key_env = "ANTHROPIC_API_KEY"
    base_url_env = "ANTHROPIC_BASE_URL"
    option_words = _OPTION_WORDS

    def __init__(self, model: str, **options: Unpack[ChatOptions]) -> None:
        # Current Messages API models fix their own sampling: there is no temperature.
        options["temperature"] = None
        options["logprobs"] = False
        super().__init__(model, **options)

    def _make_client(self, api_key: str) -> anthropic.AsyncAnthropic:
        # No timeout of the SDK's: it would bound each read, and each call is bounded whole.
        http = anthropic.DefaultAsyncHttpxClient(timeout=None, event_hooks=bounded_hooks())
        return anthropic.AsyncAnthropic(
            api_key=api_key, base_url=self.base_url, timeout=None, max_retries=0, http_client=http
        )

    async def _close_client(self, client: anthropic.AsyncAnthropic) -> None:
        await client.close()

    def _classify(self, exc: BaseException) -> ErrorClass | None:
        kind = classify_sdk_error(
            exc,
            (anthropic.APIConnectionError, anthropic.APIResponseValidationError),
            public_url(self.base_url),
            self._api_key,
        )
        return as_rejection(kind, self.option_words)

    def request_params(
        self, options: RequestOptions, messages: Sequence[ChatMessage], output: OutputSpec
    ) -> dict[str, Any]:
        """The body of a Messages request (a live call's, or a batch request's params)."""
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": output.max_tokens,
            "system": system,
            "messages": [
                {"role": m.role, "content": m.content} for m in messages if m.role != "system"
            ],
        }
        if options.structured_output != "text":
            params["tools"] = [
                {
                    "name": output.name,
                    "description": "Record the judgement in the required structure.",
                    "input_schema": dict(output.json_schema),
                }
            ]
            params["tool_choice"] = {"type": "tool", "name": output.name}
        return params

    def reply_from(self, message: Any, latency_s: float) -> ChatReply:
        """The reply a message (a live call's, or a batch result's) gives. The SDK takes any
        JSON as a message, unchecked: a body of another shape is a :class:`CallFailedError`
        (a judge error), never a crash."""
        blocks = getattr(message, "content", None)
        if not isinstance(blocks, list):
            kind = a_json_type(message) if not hasattr(message, "content") else "a message"
            what = "no content" if blocks is None else f"content that is {a_json_type(blocks)}"
            raise CallFailedError(f"the endpoint's reply is unusable: {kind} with {what}")
        usage = getattr(message, "usage", None)
        return ChatReply(
            text=received_text(_reply_text(blocks), self._api_key),
            usage=Usage(
                calls=1,
                input_tokens=count(getattr(usage, "input_tokens", 0)),
                output_tokens=count(getattr(usage, "output_tokens", 0)),
            ),
            latency_s=latency_s,
            model=self.model_of(getattr(message, "model", None)),
            truncated=getattr(message, "stop_reason", None) == "max_tokens",
        )

    async def _complete_with(
        self, options: RequestOptions, messages: Sequence[ChatMessage], output: OutputSpec
    ) -> ChatReply:
        client = self.client()
        params = self.request_params(options, messages, output)
        started = time.perf_counter()
        message = await self.call(lambda: client.messages.create(**params))
        return self.reply_from(message, time.perf_counter() - started)


def _reply_text(blocks: Sequence[Any]) -> str:
    """The tool input as JSON if the model called the tool, else its text."""
    for block in blocks:
        if getattr(block, "type", None) == "tool_use":
            return json.dumps(getattr(block, "input", None))
    texts = [
        getattr(block, "text", None) for block in blocks if getattr(block, "type", None) == "text"
    ]
    if not all(isinstance(text, str) for text in texts):
        raise CallFailedError("the endpoint's reply is unusable: a text block holds no text")
    # No text at all parses as an unusable reply, which earns the judge one re-ask.
    return "\n".join(str(text) for text in texts)
