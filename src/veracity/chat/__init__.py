"""Chat models: the transports under an LLM judge."""

from typing import TYPE_CHECKING

from veracity._lazy import lazy_exports

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
    from veracity.chat.anthropic_chat import AnthropicChat
    from veracity.chat.base import ChatModel, ChatReply
    from veracity.chat.modes import StructuredOutput
    from veracity.chat.openai_chat import OpenAIChat
    from veracity.chat.scripted import ScriptedCall, ScriptedChat
else:
    __getattr__, __dir__ = lazy_exports(__name__, __file__, __all__)
