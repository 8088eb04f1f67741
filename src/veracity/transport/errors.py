"""How a call to a model service can fail for good."""

from __future__ import annotations

from veracity._pickled import PickledWhole


class CallFailedError(Exception):
    """A call failed after its retries: the result that needed it becomes ``judge_error``."""


class JudgeFatalError(Exception):
    """The judge cannot work at all (bad key, unknown model): stop the run, keep results."""


class JudgeFailingError(JudgeFatalError):
    """Every call of the run failed after its retries and none was ever answered: the
    endpoint is failing (not busy), and each further sample would only wait out its own
    backoff to fail too."""


class RetriesExhaustedError(CallFailedError):
    """A call failed on every attempt its retry policy allows (server errors, timeouts)."""


class OptionRejectedError(PickledWhole, CallFailedError):
    """The endpoint rejected an option of the request (a ``response_format`` mode,
    ``logprobs``): a fact about the endpoint, not a passing failure, so it is never retried
    as such; the caller steps down and asks without it."""

    def __init__(self, message: str, option: str) -> None:
        super().__init__(message)
        self.option = option


class ReplyTooLargeError(Exception):
    """A reply's body is over the bound a reply may take: refused, never retried."""


class CrossHostRedirectError(Exception):
    """A service redirected a request to another host: not followed, never retried."""


def first_error(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The error to raise for ``group`` (of tasks that failed together), out of any nesting
    of groups: the first that stops the run (:class:`JudgeFatalError`), else the first."""
    errors: list[BaseException] = []
    pending: list[BaseException] = [group]
    while pending:
        current = pending.pop(0)
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        else:
            errors.append(current)
    fatal = [error for error in errors if isinstance(error, JudgeFatalError)]
    return (fatal or errors)[0]
