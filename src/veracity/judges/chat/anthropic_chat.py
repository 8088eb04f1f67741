"""Anthropic's Messages API, through the official ``anthropic`` SDK."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from typing import Any

import anthropic

from veracity.judges.chat.base import ChatReply, StructuredOutput
from veracity.judges.chat.retry import ErrorClass, RetryPolicy, classify_sdk_error
from veracity.judges.chat.sdk import SDKChat
from veracity.prompts import ChatMessage, OutputSpec
from veracity.types import Usage


class AnthropicChat(SDKChat[anthropic.AsyncAnthropic]):
    """Claude as a judge. Structured output is a forced tool call whose input schema is
    the prompt's output schema; with ``structured_output="text"`` the reply is free text
    that the parser handles like any other."""

    provider = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        concurrency: int = 16,
        timeout_s: float = 60.0,
        structured_output: StructuredOutput = "json_schema",
        max_tokens: int = 4096,
        retry: RetryPolicy | None = None,
        seed: int | None = None,
    ) -> None:
        base_url = base_url or os.environ.get("ANTHROPIC_BASE_URL") or None
        api_key = api_key or os.environ.get("ANTHROPIC_API_KEY")
        if api_key is None and base_url is None:
            raise ValueError("the anthropic judge needs ANTHROPIC_API_KEY in the environment")
        super().__init__(
            model,
            base_url=base_url,
            api_key=api_key,
            concurrency=concurrency,
            timeout_s=timeout_s,
            structured_output=structured_output,
            # Current Messages API models fix their own sampling; there is nothing to set.
            temperature=None,
            retry=retry,
            seed=seed,
        )
        self.max_tokens = max_tokens

    def _make_client(self, api_key: str) -> anthropic.AsyncAnthropic:
        return anthropic.AsyncAnthropic(
            api_key=api_key, base_url=self.base_url, timeout=self.timeout_s, max_retries=0
        )

    async def _close_client(self, client: anthropic.AsyncAnthropic) -> None:
        await client.close()

    def _classify(self, exc: BaseException) -> ErrorClass | None:
        return classify_sdk_error(
            exc, (anthropic.APIConnectionError, anthropic.APIResponseValidationError)
        )

    async def complete(
        self, messages: Sequence[ChatMessage], output: OutputSpec, *, iteration: int
    ) -> ChatReply:
        del iteration
        client = self.client()
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "system": system,
            "messages": [
                {"role": m.role, "content": m.content} for m in messages if m.role != "system"
            ],
        }
        use_tool = self.structured_output != "text"
        if use_tool:
            params["tools"] = [
                {
                    "name": output.name,
                    "description": "Record the judgement in the required structure.",
                    "input_schema": dict(output.json_schema),
                }
            ]
            params["tool_choice"] = {"type": "tool", "name": output.name}
        started = time.perf_counter()
        message = await self.call(lambda: client.messages.create(**params))
        latency = time.perf_counter() - started
        return ChatReply(
            text=_reply_text(message.content),
            usage=Usage(
                calls=1,
                input_tokens=message.usage.input_tokens,
                output_tokens=message.usage.output_tokens,
            ),
            latency_s=latency,
            model=message.model or self.model,
        )


def _reply_text(blocks: Sequence[Any]) -> str:
    """The tool input as JSON if the model called the tool, else its text."""
    for block in blocks:
        if getattr(block, "type", None) == "tool_use":
            return json.dumps(block.input)
    # No text at all parses as an unusable reply, which earns the judge one re-ask.
    return "\n".join(block.text for block in blocks if getattr(block, "type", None) == "text")
