"""How a call to a model service can fail for good."""

from __future__ import annotations


class CallFailedError(Exception):
    """A call failed after its retries: the result that needed it becomes ``judge_error``."""


class JudgeFatalError(Exception):
    """The judge cannot work at all (bad key, unknown model): stop the run, keep results."""
