"""The LLM judge: prompts to a chat model, replies parsed without trusting their shape."""

from typing import TYPE_CHECKING

from veracity._lazy import lazy_exports

__all__ = ["LLMJudge"]

if TYPE_CHECKING:
    from veracity.judges.llm.judge import LLMJudge
else:
    __getattr__, __dir__ = lazy_exports(__name__, __file__, __all__)
