"""The LLM judge: prompts to a chat model, replies parsed without trusting their shape."""

from veracity.judges.llm.judge import LLMJudge

__all__ = ["LLMJudge"]
