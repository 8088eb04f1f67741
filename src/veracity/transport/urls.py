"""Base URLs: checked before any call, and as they may be recorded."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from veracity._scrub import scrub_secrets

SCHEMES = ("http", "https")


def checked_base_url(url: str, source: str) -> str:
    """``url`` (stripped) when a request can go to it: http or https, a host, a port from 1
    to 65535. Else a ``ValueError`` naming ``source`` (``--base-url``, an environment
    variable) and the URL: the SDKs would otherwise retry a URL that cannot work as if the
    server were down, and never name it."""
    url = url.strip()
    problem = _problem(url)
    if problem is not None:
        raise ValueError(f"{source} {scrub_secrets(url)!r} is not a usable URL: {problem}")
    return url


def _problem(url: str) -> str | None:
    if any(char.isspace() for char in url):
        return "it contains a space"
    try:
        parts = urlsplit(url)
    except ValueError:  # a broken [IPv6] host
        return "its host is not valid"
    scheme = parts.scheme.lower()
    # "localhost:8000/v1" parses with the scheme "localhost": the "://" tells them apart.
    if "://" not in url or not scheme:
        return "it does not start with http:// or https:// (e.g. http://localhost:8000/v1)"
    if scheme not in SCHEMES:
        return f"the scheme must be http or https, not {parts.scheme!r}"
    if not parts.hostname:
        return "it names no host"
    try:
        port = parts.port
    except ValueError:  # no number, or past 65535
        port = 0
    if port == 0:
        return "the port must be a number from 1 to 65535"
    return None


def public_url(url: str | None) -> str | None:
    """A URL safe to record: no user info, query or fragment (they can carry secrets)."""
    if url is None:
        return None
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
