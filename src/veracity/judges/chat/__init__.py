"""Chat models: the transports under an LLM judge."""

from veracity.judges.chat.anthropic_chat import AnthropicChat
from veracity.judges.chat.base import ChatCallError, ChatModel, ChatReply, StructuredOutput
from veracity.judges.chat.limits import RequestLimiter
from veracity.judges.chat.openai_chat import OpenAIChat
from veracity.judges.chat.retry import RetryPolicy, retry_after_from_headers
from veracity.judges.chat.scripted import ScriptedCall, ScriptedChat

__all__ = [
    "AnthropicChat",
    "ChatCallError",
    "ChatModel",
    "ChatReply",
    "OpenAIChat",
    "RequestLimiter",
    "RetryPolicy",
    "ScriptedCall",
    "ScriptedChat",
    "StructuredOutput",
    "retry_after_from_headers",
]
