"""Calling model services: concurrency and throttling, retries, and how calls fail."""

from typing import TYPE_CHECKING

from veracity._lazy import lazy_exports

__all__ = [
    "CallFailedError",
    "ErrorClass",
    "JudgeFailingError",
    "JudgeFatalError",
    "OptionRejectedError",
    "RequestLimiter",
    "RetriesExhaustedError",
    "RetryPolicy",
    "call_with_retries",
    "classify_sdk_error",
    "public_url",
    "retry_after_from_headers",
]

if TYPE_CHECKING:
    from veracity.transport.errors import (
        CallFailedError,
        JudgeFailingError,
        JudgeFatalError,
        OptionRejectedError,
        RetriesExhaustedError,
    )
    from veracity.transport.limits import RequestLimiter
    from veracity.transport.retry import (
        ErrorClass,
        RetryPolicy,
        call_with_retries,
        classify_sdk_error,
        retry_after_from_headers,
    )
    from veracity.transport.urls import public_url
else:
    __getattr__, __dir__ = lazy_exports(__name__, __file__, __all__)
