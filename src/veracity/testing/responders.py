"""Simple responders: replies written by the test."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from veracity.testing._request import ChatRequest, Responder


class ScriptExhaustedError(RuntimeError):
    """A scripted responder was asked for more replies than it was given.

    The fake server turns it into an HTTP 500 whose message says so.
    """


def scripted(replies: Sequence[str]) -> Responder:
    """A responder that returns ``replies`` in order, one per chat request (thread-safe).

    Once they are used up every further request raises :class:`ScriptExhaustedError`, which
    the server answers with HTTP 500. Requests failed by an injected transport fault do not
    consume a reply.
    """
    script = tuple(replies)
    lock = threading.Lock()
    position = 0

    def respond(request: ChatRequest) -> str:
        nonlocal position
        with lock:
            if position >= len(script):
                raise ScriptExhaustedError(
                    f"scripted responder exhausted: all {len(script)} replies were used "
                    f"(request for model {request.model!r})"
                )
            position += 1
            return script[position - 1]

    return respond
