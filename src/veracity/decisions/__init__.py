"""Decision models: typed questions in, a probability per option out (System One, OpenAI's
Decisions API). The transport under a decision judge."""

from typing import TYPE_CHECKING

from veracity._lazy import lazy_exports

__all__ = [
    "Answer",
    "DecisionModel",
    "DecisionReply",
    "DecisionRequest",
    "Option",
    "Question",
    "ServerLimits",
]

if TYPE_CHECKING:
    from veracity.decisions.base import (
        Answer,
        DecisionModel,
        DecisionReply,
        DecisionRequest,
        Option,
        Question,
        ServerLimits,
    )
else:
    __getattr__, __dir__ = lazy_exports(__name__, __file__, __all__)
