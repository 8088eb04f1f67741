"""veracity: evaluate Retrieval-Augmented-Generation systems, claim by claim.

The public API is what ``__all__`` lists; everything else may change between versions.
Each name is imported on first use, so ``import veracity`` (and any of its submodules)
stays quick: the evaluation stack, numpy and the SDKs load only when asked for.
"""

from typing import TYPE_CHECKING

from veracity._lazy import lazy_exports
from veracity._version import __version__

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
    "samples_from_traces",
]

if TYPE_CHECKING:
    from veracity.chat import OpenAIChat, ScriptedChat
    from veracity.chat.anthropic_chat import AnthropicChat
    from veracity.dataset import (
        BadRowsWarning,
        DatasetError,
        NoValidSampleError,
        RowError,
        read_dataset,
    )
    from veracity.evaluation import EvaluationResult, aevaluate, evaluate
    from veracity.judges import Judge, JudgeFatalError, LLMJudge, make_judge
    from veracity.metrics import Faithfulness, Metric
    from veracity.traces import samples_from_traces
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
else:
    __getattr__, __dir__ = lazy_exports(__name__, __file__, __all__)
