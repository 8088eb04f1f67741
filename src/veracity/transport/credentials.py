"""Where a service's key and base URL come from: the arguments, else the environment."""

from __future__ import annotations

import os
from dataclasses import dataclass

from veracity.transport.urls import checked_base_url


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A base URL and a key; the key is held in memory only, never described or written."""

    base_url: str | None
    api_key: str | None = None

    def __repr__(self) -> str:
        return f"Endpoint(base_url={self.base_url!r}, api_key={'***' if self.api_key else None})"


def resolve_endpoint(
    who: str, base_url: str | None, api_key: str | None, *, key_env: str, base_url_env: str
) -> Endpoint:
    """The endpoint from the arguments or ``key_env`` / ``base_url_env``; a local server
    (a base URL) may go without a key. ``who`` names the user of it in the error. A base
    URL no request could go to is a ``ValueError`` here, before any call."""
    if base_url:
        base_url = checked_base_url(base_url, "base_url")
    elif environment_url := os.environ.get(base_url_env):
        base_url = checked_base_url(environment_url, base_url_env)
    else:
        base_url = None
    api_key = api_key or os.environ.get(key_env) or None
    if api_key is None and base_url is None:
        raise ValueError(
            f"the {who} needs {key_env} in the environment, or a base URL "
            f"(--base-url or {base_url_env}) for a local server"
        )
    return Endpoint(base_url, api_key)
