"""Judges: who answers the questions metrics ask (an LLM through a chat model, a decision
model, or offline)."""

from typing import TYPE_CHECKING

from veracity._lazy import lazy_exports

__all__ = [
    "DecisionJudge",
    "Judge",
    "JudgeFailingError",
    "JudgeFatalError",
    "JudgeOutcome",
    "JudgeSpecError",
    "LLMJudge",
    "default_judge_spec",
    "make_judge",
]

if TYPE_CHECKING:
    from veracity.judges.base import Judge, JudgeOutcome
    from veracity.judges.decision import DecisionJudge
    from veracity.judges.factory import JudgeSpecError, default_judge_spec, make_judge
    from veracity.judges.llm import LLMJudge
    from veracity.transport import JudgeFailingError, JudgeFatalError
else:
    __getattr__, __dir__ = lazy_exports(__name__, __file__, __all__)
