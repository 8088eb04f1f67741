"""Keeping keys out of every error text from a service."""

from __future__ import annotations

import re
from urllib.parse import quote

MASK = "***"
# Credentials in the shapes endpoints and HTTP libraries echo them back: a header or field
# naming a key or the authorization, a bearer token, provider key formats, user info in a URL.
_CREDENTIALS = (
    (
        re.compile(
            r"(?i)\b((?:x-)?api[-_]?key|authorization)([\"']?\s*[:=]\s*[\"']?)"
            r"(?:(?:bearer|basic)\s+)?[^\s\"',;&}]+"
        ),
        rf"\1\2{MASK}",
    ),
    (re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]+"), rf"\1 {MASK}"),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"), MASK),
    (re.compile(r"(?<=://)[^/\s@]+@"), f"{MASK}@"),
)
# Shorter keys are the placeholders local servers ignore ("EMPTY", "ollama"), no secret:
# masking them would garble ordinary words of a message.
_MIN_KEY_CHARS = 8


def scrub_secrets(text: str, key: str | None = None) -> str:
    """``text`` (an endpoint's error, say) with ``key`` (as is or URL-encoded), bearer
    tokens, key headers and fields, provider-shaped keys and URL user info masked: the one
    filter every error text from a service passes before it is stored, cached or shown."""
    if key and len(key) >= _MIN_KEY_CHARS:
        for form in (key, quote(key, safe="")):
            text = text.replace(form, MASK)
    for pattern, replacement in _CREDENTIALS:
        text = pattern.sub(replacement, text)
    return text
