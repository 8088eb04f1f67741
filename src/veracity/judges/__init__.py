"""Judges: who answers the questions metrics ask (an LLM through a chat model, or offline)."""

from veracity.judges.base import Judge, JudgeOutcome
from veracity.judges.factory import JudgeSpecError, default_judge_spec, make_judge
from veracity.judges.llm import LLMJudge
from veracity.transport import JudgeFailingError, JudgeFatalError

__all__ = [
    "Judge",
    "JudgeFailingError",
    "JudgeFatalError",
    "JudgeOutcome",
    "JudgeSpecError",
    "LLMJudge",
    "default_judge_spec",
    "make_judge",
]
