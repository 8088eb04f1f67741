"""What the fake server hands to a responder: one chat request, whichever API it came from."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from veracity._pickled import PickledWhole

Api = Literal["openai", "anthropic"]


class RequestError(PickledWhole, ValueError):
    """A request body the fake server rejects with HTTP 400."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


@dataclass(frozen=True)
class ChatRequest:
    """One chat request, API-neutral.

    ``messages`` holds ``(role, text)`` pairs in order; for the Anthropic API the ``system``
    parameter comes first as a ``"system"`` message. Content blocks are flattened to text.
    """

    model: str
    messages: tuple[tuple[str, str], ...]
    response_format: Mapping[str, Any] | None
    api: Api
    raw: Mapping[str, Any]

    def texts(self, role: str) -> list[str]:
        """The texts of every message with ``role``, in order."""
        return [text for r, text in self.messages if r == role]

    @property
    def system(self) -> str:
        return "\n\n".join(self.texts("system"))

    @property
    def first_user(self) -> str:
        users = self.texts("user")
        return users[0] if users else ""

    @property
    def last_user(self) -> str:
        users = self.texts("user")
        return users[-1] if users else ""


Responder = Callable[[ChatRequest], str]
"""Turns a request into the assistant's reply text."""

Latency = float | Callable[[ChatRequest], float]
"""Seconds to wait before answering: a constant, or computed per request."""


def approx_tokens(text: str) -> int:
    """A rough token count (about four characters a token), never zero."""
    return len(text) // 4 + 1


def content_text(content: object) -> str:
    """Flatten an OpenAI or Anthropic message content (string or list of blocks) to text."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_block_text(block) for block in content)
    return json.dumps(content)


def _block_text(block: object) -> str:
    if isinstance(block, str):
        return block
    if not isinstance(block, dict):
        return ""
    if isinstance(block.get("text"), str):
        return str(block["text"])
    if block.get("type") == "tool_use":
        return json.dumps(block.get("input", {}))
    if block.get("type") == "tool_result":
        return content_text(block.get("content"))
    return ""


def _model(body: Mapping[str, Any]) -> str:
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise RequestError("you must provide a model parameter", "model")
    return model


def _messages(body: Mapping[str, Any]) -> list[tuple[str, str]]:
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestError("messages must be a non-empty array", "messages")
    pairs: list[tuple[str, str]] = []
    for message in messages:
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise RequestError("each message must be an object with a role", "messages")
        pairs.append((message["role"], content_text(message.get("content"))))
    return pairs


def openai_chat_request(body: Mapping[str, Any]) -> ChatRequest:
    """Read a ``POST /v1/chat/completions`` body."""
    response_format = body.get("response_format")
    if response_format is not None and not isinstance(response_format, dict):
        raise RequestError("response_format must be an object", "response_format")
    return ChatRequest(
        model=_model(body),
        messages=tuple(_messages(body)),
        response_format=response_format,
        api="openai",
        raw=body,
    )


def anthropic_chat_request(body: Mapping[str, Any]) -> ChatRequest:
    """Read a ``POST /v1/messages`` body; ``system`` becomes the first message."""
    messages = _messages(body)
    system = content_text(body.get("system"))
    if system:
        messages.insert(0, ("system", system))
    return ChatRequest(
        model=_model(body),
        messages=tuple(messages),
        response_format=None,
        api="anthropic",
        raw=body,
    )


def forced_tool(body: Mapping[str, Any]) -> str | None:
    """The tool name an Anthropic request forces with ``tool_choice``, if any."""
    choice = body.get("tool_choice")
    if not body.get("tools") or not isinstance(choice, dict) or choice.get("type") != "tool":
        return None
    name = choice.get("name")
    return name if isinstance(name, str) and name else None


def embedding_inputs(body: Mapping[str, Any]) -> list[str]:
    """The texts of a ``POST /v1/embeddings`` body (token arrays are read as their ids)."""
    raw = body.get("input")
    if isinstance(raw, str):
        return [raw]
    if isinstance(raw, list) and raw:
        if all(isinstance(item, int) for item in raw):
            return [" ".join(str(item) for item in raw)]
        texts: list[str] = []
        for item in raw:
            if isinstance(item, str):
                texts.append(item)
            elif isinstance(item, list):
                texts.append(" ".join(str(token) for token in item))
            else:
                raise RequestError("input must be a string or an array of strings", "input")
        return texts
    raise RequestError("input must be a non-empty string or array", "input")
