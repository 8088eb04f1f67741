"""Base URLs as they may be recorded."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def public_url(url: str | None) -> str | None:
    """A URL safe to record: no user info, query or fragment (they can carry secrets)."""
    if url is None:
        return None
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
