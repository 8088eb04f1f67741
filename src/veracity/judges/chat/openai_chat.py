"""Any OpenAI-compatible chat endpoint, through the official ``openai`` SDK."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from veracity.judges.chat.base import (
    STRUCTURED_OUTPUT_FALLBACK,
    ChatReply,
    StructuredOutput,
)
from veracity.judges.chat.sdk import SDKChat
from veracity.prompts import ChatMessage, OutputSpec
from veracity.transport import CallFailedError
from veracity.transport.retry import ErrorClass, classify_sdk_error
from veracity.transport.urls import public_url
from veracity.types import Usage

if TYPE_CHECKING:  # the SDK takes half a second to import: only when a judge is made
    import openai
    from openai.types.chat import ChatCompletionMessageParam


class OpenAIChat(SDKChat["openai.AsyncOpenAI"]):
    """Chat completions against OpenAI or any compatible server.

    ``structured_output`` is where to start; when the endpoint rejects a mode with HTTP
    400 the model steps down (json_schema → json_object → text) and remembers it.
    """

    provider = "openai"
    key_env = "OPENAI_API_KEY"
    base_url_env = "OPENAI_BASE_URL"

    def _make_client(self, api_key: str) -> openai.AsyncOpenAI:
        import openai

        return openai.AsyncOpenAI(
            api_key=api_key, base_url=self.base_url, timeout=self.timeout_s, max_retries=0
        )

    async def _close_client(self, client: openai.AsyncOpenAI) -> None:
        await client.close()

    def _classify(self, exc: BaseException) -> ErrorClass | None:
        import openai

        return classify_sdk_error(
            exc,
            (openai.APIConnectionError, openai.APIResponseValidationError),
            public_url(self.base_url),
        )

    async def complete(
        self, messages: Sequence[ChatMessage], output: OutputSpec, *, iteration: int
    ) -> ChatReply:
        del iteration  # part of the cache key upstream; the endpoint has no use for it
        while True:
            mode = self.structured_output
            try:
                return await self._complete_with(mode, messages, output)
            except CallFailedError as exc:
                fallback = STRUCTURED_OUTPUT_FALLBACK[mode]
                if fallback is None or not _rejects_response_format(exc):
                    raise
                if self.structured_output == mode:
                    self.structured_output = fallback
                    self.notes.append(f"endpoint rejected {mode}; using {fallback}")

    async def _complete_with(
        self, mode: StructuredOutput, messages: Sequence[ChatMessage], output: OutputSpec
    ) -> ChatReply:
        client = self.client()
        params: dict[str, Any] = {
            "model": self.model,
            "messages": [_message_param(m) for m in messages],
        }
        if self.temperature is not None:
            params["temperature"] = self.temperature
        if mode == "json_schema":
            params["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": output.name, "schema": dict(output.json_schema)},
            }
        elif mode == "json_object":
            params["response_format"] = {"type": "json_object"}
        started = time.perf_counter()
        completion = await self.call(lambda: client.chat.completions.create(**params))
        latency = time.perf_counter() - started
        if not completion.choices:
            raise CallFailedError("the endpoint returned no choices")
        usage = completion.usage
        return ChatReply(
            text=completion.choices[0].message.content or "",
            usage=Usage(
                calls=1,
                input_tokens=usage.prompt_tokens if usage else 0,
                output_tokens=usage.completion_tokens if usage else 0,
            ),
            latency_s=latency,
            model=completion.model or self.model,
        )


def _message_param(message: ChatMessage) -> ChatCompletionMessageParam:
    if message.role == "system":
        return {"role": "system", "content": message.content}
    if message.role == "assistant":
        return {"role": "assistant", "content": message.content}
    return {"role": "user", "content": message.content}


def _rejects_response_format(exc: CallFailedError) -> bool:
    message = str(exc).lower()
    return "http 400" in message and ("response_format" in message or "json_schema" in message)
