"""veracity: evaluate Retrieval-Augmented-Generation systems, claim by claim.

The public API is what ``__all__`` lists; everything else may change between versions.
"""

import typing as _typing

from veracity._version import __version__
from veracity.dataset import (
    BadRowsWarning,
    DatasetError,
    NoValidSampleError,
    RowError,
    read_dataset,
)
from veracity.evaluation import EvaluationResult, aevaluate, evaluate
from veracity.judges import Judge, JudgeFatalError, LLMJudge, make_judge
from veracity.judges.chat import OpenAIChat, ScriptedChat
from veracity.metrics import Faithfulness, Metric
from veracity.transport import RetryPolicy
from veracity.types import (
    ClaimVerdict,
    MetricResult,
    ResultRecord,
    Sample,
    Status,
    Usage,
    Verdict,
)

__all__ = [
    "AnthropicChat",
    "BadRowsWarning",
    "ClaimVerdict",
    "DatasetError",
    "EvaluationResult",
    "Faithfulness",
    "Judge",
    "JudgeFatalError",
    "LLMJudge",
    "Metric",
    "MetricResult",
    "NoValidSampleError",
    "OpenAIChat",
    "ResultRecord",
    "RetryPolicy",
    "RowError",
    "Sample",
    "ScriptedChat",
    "Status",
    "Usage",
    "Verdict",
    "__version__",
    "aevaluate",
    "evaluate",
    "make_judge",
    "read_dataset",
]

if _typing.TYPE_CHECKING:
    from veracity.judges.chat.anthropic_chat import AnthropicChat


def __getattr__(name: str) -> object:
    if name == "AnthropicChat":  # imported on first use: the anthropic SDK is slow to load
        from veracity.judges.chat.anthropic_chat import AnthropicChat

        return AnthropicChat
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
