"""The decision judge: metrics' questions asked of a decision model as typed questions."""

from typing import TYPE_CHECKING

from veracity._lazy import lazy_exports

__all__ = ["DecisionJudge"]

if TYPE_CHECKING:
    from veracity.judges.decision.judge import DecisionJudge
else:
    __getattr__, __dir__ = lazy_exports(__name__, __file__, __all__)
