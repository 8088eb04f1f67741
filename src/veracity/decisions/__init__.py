"""Decision models: typed questions in, a probability per option out (System One, OpenAI's
Decisions API). The transport under a decision judge."""

from typing import TYPE_CHECKING

from veracity._lazy import lazy_exports

__all__ = [
    "Answer",
    "CachedDecisions",
    "DecisionModel",
    "DecisionReply",
    "DecisionRequest",
    "OpenAIDecisions",
    "Option",
    "PartlyDecidedError",
    "Question",
    "ServerLimits",
    "SystemOne",
]

if TYPE_CHECKING:
    from veracity.decisions.base import (
        Answer,
        DecisionModel,
        DecisionReply,
        DecisionRequest,
        Option,
        PartlyDecidedError,
        Question,
        ServerLimits,
    )
    from veracity.decisions.cache import CachedDecisions
    from veracity.decisions.openai_decisions import OpenAIDecisions
    from veracity.decisions.systemone import SystemOne
else:
    __getattr__, __dir__ = lazy_exports(__name__, __file__, __all__)
