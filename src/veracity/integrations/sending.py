"""What sending a run's results to a service does the same way for every destination
(Phoenix, Langfuse, an OTLP endpoint): one HTTP client bounded as judge calls are — a
reply's body bounded in size, each request bounded in time all told (a reply dripping in
included), no redirect followed to another host — and errors that say where, scrubbed of
the credentials sent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from veracity._scrub import scrub_secrets
from veracity.transport.bounded import MAX_BODY_BYTES, bounded_hooks
from veracity.transport.urls import checked_base_url

if TYPE_CHECKING:
    import httpx

# Seconds one request may take in all: connecting, sending the results, the whole reply.
SEND_TIMEOUT_S = 60.0
# A destination's reply says what it took: a few ids or counts per result sent.
MAX_REPLY_BYTES = MAX_BODY_BYTES


class SendError(Exception):
    """A destination did not take the results, or said so: where, and what it said."""


def send_client(url: str, timeout_s: float, **options: Any) -> httpx.AsyncClient:
    """An HTTP client for the service at ``url`` with the bounds of every send."""
    import httpx

    checked_base_url(url, "--url")
    return httpx.AsyncClient(
        base_url=url,  # Phoenix's client asks by path; Langfuse's by whole URL
        timeout=timeout_s,
        follow_redirects=True,  # on the same host only: the hooks refuse any other
        event_hooks=bounded_hooks(MAX_REPLY_BYTES, origin=url),
        **options,
    )


def failure(where: str, exc: BaseException, *keys: str | None) -> SendError:
    """What went wrong sending to ``where``, without the credentials sent (``keys``)."""
    text = f"{type(exc).__name__}: {exc}".rstrip(": ")
    for key in keys:
        text = scrub_secrets(text, key)
    text = scrub_secrets(text)
    return SendError(f"{where}: {text[:500]}")
