"""Keeping keys out of every error text from a service."""

from __future__ import annotations

import base64
import binascii
import functools
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
# An HTTP Basic credential echoed without its header's name ("Invalid credentials: Basic
# cGst…"): masked when the token decodes to user:password, so "basic information" stays.
_BASIC = re.compile(r"(?i)\b(basic)\s+([A-Za-z0-9+/_-]{4,}={0,2})")
# Shorter keys are the placeholders local servers ignore ("EMPTY", "ollama"), no secret:
# masking them would garble ordinary words of a message.
_MIN_KEY_CHARS = 8


def _basic(match: re.Match[str]) -> str:
    token = match.group(2).replace("-", "+").replace("_", "/")  # either alphabet
    try:
        decoded = base64.b64decode(token + "=" * (-len(token) % 4), validate=True)
    except binascii.Error:
        return match.group(0)
    return f"{match.group(1)} {MASK}" if b":" in decoded else match.group(0)


def _base64_cores(secret: bytes) -> list[str]:
    """What any base64 text holding ``secret`` contains, whatever comes before it (the
    ``public:`` of a Basic credential, say): for each of the three alignments the secret
    can start at, the characters its bytes alone decide."""
    cores = []
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + secret).decode()
        start = -(-8 * offset // 6)  # the characters that still hold bits of the prefix
        tail = (offset + len(secret)) % 3
        cut = len(encoded) - (4 - (tail * 8) // 6 if tail else 0)  # bits of what follows
        cores.append(encoded[start:cut])
    return cores


@functools.lru_cache(maxsize=64)
def _forms(key: str) -> tuple[str, ...]:
    """``key`` as an endpoint may echo it: as is, URL-encoded, and inside base64 (standard
    and URL-safe alphabets, themselves as is or URL-encoded), longest first."""
    found = {key, quote(key, safe="")}
    for core in _base64_cores(key.encode()):
        for form in (core, core.replace("+", "-").replace("/", "_")):
            found |= {form, quote(form, safe="")}
    return tuple(sorted(found, key=len, reverse=True))


def scrub_secrets(text: str, key: str | None = None) -> str:
    """``text`` (an endpoint's error, say) with ``key`` (as is, URL-encoded or in base64, as
    an HTTP Basic credential carries it), bearer tokens and Basic credentials, key headers
    and fields, provider-shaped keys and URL user info masked: the one filter every error
    text from a service passes before it is stored, cached or shown."""
    text = _BASIC.sub(_basic, text)  # first: a whole Basic token, before a key inside it
    if key and len(key) >= _MIN_KEY_CHARS:
        for form in _forms(key):
            text = text.replace(form, MASK)
    for pattern, replacement in _CREDENTIALS:
        text = pattern.sub(replacement, text)
    return text
