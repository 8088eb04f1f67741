"""Chat models: the transports under an LLM judge."""

from typing import TYPE_CHECKING, Any

from veracity.judges.chat.base import ChatModel, ChatReply, StructuredOutput
from veracity.judges.chat.openai_chat import OpenAIChat
from veracity.judges.chat.scripted import ScriptedCall, ScriptedChat

__all__ = [
    "AnthropicChat",
    "ChatModel",
    "ChatReply",
    "OpenAIChat",
    "ScriptedCall",
    "ScriptedChat",
    "StructuredOutput",
]

if TYPE_CHECKING:
    from veracity.judges.chat.anthropic_chat import AnthropicChat


def __getattr__(name: str) -> Any:
    # The anthropic SDK takes most of a second to import: only load it when asked for.
    if name == "AnthropicChat":
        from veracity.judges.chat.anthropic_chat import AnthropicChat

        return AnthropicChat
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
