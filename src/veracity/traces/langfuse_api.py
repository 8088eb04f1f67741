"""Spans out of a Langfuse server, through its SDK's API client: the observations of a
time window (the real-time read path, ``/api/public/v2/observations``), page by page.

The keys come from ``LANGFUSE_PUBLIC_KEY`` and ``LANGFUSE_SECRET_KEY``, as for Langfuse's
own SDK; they are never written anywhere, and every error text is scrubbed of them.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

from veracity._scrub import scrub_secrets
from veracity.traces.langfuse import readable_observation
from veracity.traces.otlp import Span, TraceFileError, TraceWindowCut

if TYPE_CHECKING:
    import httpx
    from langfuse.api import LangfuseAPI

__all__ = [
    "LANGFUSE_PAGE",
    "MAX_OBSERVATIONS",
    "langfuse_client",
    "langfuse_keys",
    "read_langfuse_api_spans",
]

LANGFUSE_PAGE = 1_000  # the API's largest page
# Observations read at most: a window beyond it is cut, and said.
MAX_OBSERVATIONS = 200_000
FIELDS = "core,basic,io,trace_context"


def langfuse_client(base_url: str, http: httpx.Client | None = None) -> LangfuseAPI:
    """Langfuse's API client for ``base_url``, with the keys of the environment."""
    try:
        from langfuse.api import LangfuseAPI
    except ImportError as exc:
        raise TraceFileError(
            "reading from or sending to Langfuse needs its SDK: pip install 'veracity[langfuse]'"
        ) from exc
    public, secret = langfuse_keys(base_url)
    return LangfuseAPI(
        base_url=base_url.rstrip("/"), username=public, password=secret,
        x_langfuse_public_key=public, timeout=60, httpx_client=http,
    )  # fmt: skip


def langfuse_keys(base_url: str) -> tuple[str, str]:
    """The project's public and secret keys, from the environment."""
    public, secret = os.environ.get("LANGFUSE_PUBLIC_KEY"), os.environ.get("LANGFUSE_SECRET_KEY")
    if not public or not secret:
        raise TraceFileError(
            f"Langfuse at {base_url}: set LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY (the "
            "project's API keys)"
        )
    return public, secret


def failure(base_url: str, exc: Exception) -> TraceFileError:
    """What went wrong talking to Langfuse, without its keys."""
    text = scrub_secrets(f"{type(exc).__name__}: {exc}", os.environ.get("LANGFUSE_SECRET_KEY"))
    return TraceFileError(f"Langfuse at {base_url}: {text[:500]}")


def _decoded(value: Any) -> Any:
    """The API returns inputs and outputs as JSON text: read back to what was logged (text
    that is not JSON stays text)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):  # text, or too deep to read: the text it is
            return value
    return value


def read_langfuse_api_spans(
    base_url: str,
    *,
    since: datetime | None = None,
    http: httpx.Client | None = None,
    limit: int = MAX_OBSERVATIONS,
) -> Iterator[Span]:
    """The observations on the Langfuse at ``base_url`` (started since ``since``), as
    spans; a server that cannot be reached, refuses the keys or answers otherwise than the
    API says is a :class:`TraceFileError`."""
    client = langfuse_client(base_url, http)
    cursor: str | None = None
    read = 0
    while read < limit:
        try:
            page = client.observations.get_many(
                fields=FIELDS, limit=min(LANGFUSE_PAGE, limit - read), cursor=cursor,
                from_start_time=since,
            )  # fmt: skip
        except Exception as exc:  # httpx's errors, the SDK's ApiError and its parse errors
            raise failure(base_url, exc) from None
        for observation in page.data:
            if not observation.trace_id:
                continue
            root = bool(observation.is_root_observation) or not observation.parent_observation_id
            raw = {
                "id": observation.id,
                "type": observation.type,
                "name": observation.name,
                "input": _decoded(observation.input),
                "output": _decoded(observation.output),
                "parentObservationId": None if root else observation.parent_observation_id,
                "startTime": observation.start_time,
                "endTime": observation.end_time,
            }
            yield readable_observation(
                raw, observation.trace_id, "", observation.trace_name, base_url
            )
        read += len(page.data)
        cursor = page.meta.cursor
        if not cursor or not page.data:
            return
    warnings.warn(
        f"Langfuse at {base_url}: read the first {limit} observations of the window only: "
        "narrow it with --since",
        TraceWindowCut,
        stacklevel=2,
    )
