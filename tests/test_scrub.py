"""Issue 48 item 21: a credential echoed in an encoded form (the base64 of an HTTP Basic
``public:secret``, of the secret alone, URL-encoded) is masked like the key itself."""

from __future__ import annotations

import base64
import binascii
import re
from urllib.parse import quote, unquote

import pytest

from veracity._scrub import MASK, scrub_secrets

PUBLIC, SECRET = "pk-lf-0a1b2c3d", "sk-lf-9f8e7d6c5b4a-3210"
BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{4,}")


def readable_secret(text: str) -> bool:
    """Whether ``text`` still gives the secret away: as is, or decoded from any run of
    base64 characters in it (either alphabet, URL-encoded or not)."""
    text = unquote(text)
    if SECRET in text:
        return True
    for run in BASE64_RUN.findall(text):
        for start in range(4):  # a run whose start is not a group's start
            chunk = run[start:].replace("-", "+").replace("_", "/")
            chunk = chunk[: len(chunk) - len(chunk) % 4]
            try:
                decoded = base64.b64decode(chunk, validate=True)
            except binascii.Error:
                continue
            if SECRET[2:-2].encode() in decoded:
                return True
    return False


def test_the_check_itself_finds_an_encoded_secret() -> None:
    encoded = base64.b64encode(f"{PUBLIC}:{SECRET}".encode()).decode()
    assert readable_secret(f"it said {encoded}")


def test_an_echoed_basic_authorization_header_is_masked_whole() -> None:
    encoded = base64.b64encode(f"{PUBLIC}:{SECRET}".encode()).decode()
    said = scrub_secrets(f"Invalid credentials: Basic {encoded}", SECRET)
    assert said == f"Invalid credentials: Basic {MASK}"
    # Without the key given too: a Basic token is user:password, a credential whatever it is.
    assert scrub_secrets(f"got 'Basic {encoded}'") == f"got 'Basic {MASK}'"


@pytest.mark.parametrize("before", ["", "a", "ab", f"{PUBLIC}:", "user-x:"])
@pytest.mark.parametrize("after", ["", "!", "-tail"])
@pytest.mark.parametrize(
    "encode", [base64.b64encode, base64.urlsafe_b64encode], ids=["standard", "url-safe"]
)
@pytest.mark.parametrize("url_encoded", [False, True], ids=["plain", "url-encoded"])
def test_the_secret_inside_any_base64_text_is_masked(
    before: str, after: str, encode: object, url_encoded: bool
) -> None:
    assert callable(encode)
    encoded = encode(f"{before}{SECRET}{after}".encode()).decode()
    if url_encoded:
        encoded = quote(encoded, safe="")
    said = scrub_secrets(f"the server echoed {encoded} back", SECRET)
    assert MASK in said and not readable_secret(said)


def test_the_url_encoded_secret_is_masked() -> None:
    secret = "sk/lf+secret=0123456789"
    said = scrub_secrets(f"GET /scores?key={quote(secret, safe='')} refused", secret)
    assert secret not in unquote(said) and MASK in said


@pytest.mark.parametrize(
    "text",
    [
        "the basic information is missing",
        "Basic authentication failed for this project",
        "a basic plan allows 10 scores",
    ],
)
def test_the_word_basic_in_a_message_is_left_alone(text: str) -> None:
    assert scrub_secrets(text, SECRET) == text
